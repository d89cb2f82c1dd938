/**
 * The member side alone (execution, namespace sync, cluster): Works written directly on the hub
 * are applied to member planes, with no hub-side controller running.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { workName, type Work } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../client/types.ts';
import { StaticPlane } from '../../runtime/manager-context.ts';
import type { RunnableController } from '../../runtime/controller.ts';
import {
  CLUSTERS,
  DFW_1,
  DFW_2,
  NAMESPACES,
  NCS,
  NS_A,
  ORD_1,
  WORKS,
  conditionOf,
  contextTemplate,
  startPropagationHarness,
  type PropagationHarness,
} from '../../../test/support/propagation-harness.ts';
import type { EngineContext } from '../engine-context.ts';
import { KindResolver } from '../kinds.ts';
import { embeddedMembers, memberControllers } from './index.ts';

const MANAGED = 'karmada.io/managed';

/** A Work in `cluster`'s execution space holding `manifest`, as the hub side would write it. */
function work(cluster: string, name: string, manifest: KubeObject, preserve = false): Work {
  return {
    metadata: { name, namespace: `karmada-es-${cluster}` },
    spec: {
      workload: { manifests: [manifest] },
      preserveResourcesOnDeletion: preserve,
      suspendDispatching: false,
    },
  };
}

function managedContext(name: string, cluster: string, workName: string, namespace = NS_A): KubeObject {
  const object = contextTemplate({ name, namespace });
  object.metadata.labels = { ...object.metadata.labels, [MANAGED]: 'true' };
  object.metadata.annotations = {
    'work.karmada.io/name': workName,
    'work.karmada.io/namespace': `karmada-es-${cluster}`,
    'resourcetemplate.karmada.io/managed-labels': `${MANAGED},networking.datumapis.com/location`,
    'resourcetemplate.karmada.io/managed-annotations':
      'resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,work.karmada.io/name,work.karmada.io/namespace',
  };
  return object;
}

describe('execution on its own', () => {
  let h: PropagationHarness;
  let hub: StaticPlane;
  let ctx: EngineContext;
  let controllers: RunnableController[];

  before(async () => {
    h = await startPropagationHarness({ engine: false });
    await h.hub<Cluster>(CLUSTERS).patchMerge(ORD_1, undefined, { spec: { syncMode: 'Pull' } });
    await h.setReady(DFW_2, 'False');
    hub = new StaticPlane('hub', h.kubeConfig('hub'), h.clock, h.log);
    ctx = {
      mode: 'embedded',
      hub,
      members: embeddedMembers({
        kubeConfigFor: (plane) => ([DFW_1, DFW_2, ORD_1].includes(plane) ? h.kubeConfig(plane) : undefined),
        clock: h.clock,
        log: h.log,
      }),
      kinds: new KindResolver(),
      clock: h.clock,
      log: h.log,
      metrics: h.metrics,
    };
    controllers = memberControllers.map((definition) => definition.build(ctx));
    await hub.synced();
    for (const controller of controllers) await controller.start();
  });

  after(async () => {
    for (const controller of controllers) await controller.stop();
    await hub.close();
    await ctx.members.close();
    await h.stop();
  });

  const applied = (cluster: string, name: string, status: 'True' | 'False') =>
    h.eventually(async () => {
      const found = conditionOf(await h.hub<Work>(WORKS).get(name, `karmada-es-${cluster}`), 'Applied');
      return found?.status === status ? found : undefined;
    }, `Work ${name} on ${cluster} Applied=${status}`);

  it('applies a Work written on the hub, after carrying its namespace, and adds its finalizer', async () => {
    await h.hub(WORKS).create(work(DFW_1, 'direct', managedContext('direct', DFW_1, 'direct')));
    await applied(DFW_1, 'direct', 'True');
    const copy = await h.member(DFW_1, NCS).get('direct', NS_A);
    assert.equal(copy?.metadata.labels?.[MANAGED], 'true');
    assert.equal((await h.member(DFW_1, NAMESPACES).get(NS_A))?.metadata.labels?.[MANAGED], 'true');
    const held = await h.hub<Work>(WORKS).get('direct', `karmada-es-${DFW_1}`);
    assert.deepEqual(held?.metadata.finalizers, ['karmada.io/execution-controller']);
    assert.equal(conditionOf(held, 'Applied')?.message, 'Manifest has been successfully applied');
  });

  it('reports a kind the member does not serve, naming its apiVersion and kind', async () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    await h.hub(WORKS).create(work(DFW_1, 'widget', widget));
    const condition = await applied(DFW_1, 'widget', 'False');
    assert.equal(condition.reason, 'AppliedFailed');
    assert.match(condition.message, /^Failed to apply all manifests \(0\/1\): .*Widget.*example\.com\/v1/);
  });

  it('reports a namespace that is not carried and absent on the member', async () => {
    await h
      .hub(WORKS)
      .create(work(DFW_1, 'nowhere', managedContext('nowhere', DFW_1, 'nowhere', 'kube-nowhere')));
    const condition = await applied(DFW_1, 'nowhere', 'False');
    assert.match(condition.message, /kube-nowhere/);
  });

  it('leaves a Work for an unready cluster without a condition until the cluster is ready', async () => {
    await h.hub(WORKS).create(work(DFW_2, 'waiting', managedContext('waiting', DFW_2, 'waiting')));
    await h.eventually(async () => {
      const held = await h.hub<Work>(WORKS).get('waiting', `karmada-es-${DFW_2}`);
      return held?.metadata.finalizers?.length ? held : undefined;
    }, 'the finalizer');
    await h.idle();
    assert.equal(
      conditionOf(await h.hub<Work>(WORKS).get('waiting', `karmada-es-${DFW_2}`), 'Applied'),
      undefined,
    );
    assert.equal(await h.member(DFW_2, NCS).get('waiting', NS_A), undefined);
    await h.setReady(DFW_2, 'True');
    await applied(DFW_2, 'waiting', 'True');
  });

  it('never applies to a Pull cluster', async () => {
    await h.hub(WORKS).create(work(ORD_1, 'pulled', managedContext('pulled', ORD_1, 'pulled')));
    await h.idle();
    assert.equal(
      conditionOf(await h.hub<Work>(WORKS).get('pulled', `karmada-es-${ORD_1}`), 'Applied'),
      undefined,
    );
    assert.equal(await h.member(ORD_1, NCS).get('pulled', NS_A), undefined);
  });

  it('never deletes an unmanaged object when its Work goes', async () => {
    await h.member(DFW_1, NCS).create(contextTemplate({ name: 'theirs' }));
    const theirs = managedContext('theirs', DFW_1, 'theirs');
    await h.hub(WORKS).create(work(DFW_1, 'theirs', theirs));
    await applied(DFW_1, 'theirs', 'False');
    await h.hub(WORKS).delete('theirs', `karmada-es-${DFW_1}`);
    await h.eventually(
      async () => ((await h.hub(WORKS).get('theirs', `karmada-es-${DFW_1}`)) ? undefined : true),
      'the Work released',
    );
    assert.ok(await h.member(DFW_1, NCS).get('theirs', NS_A));
  });

  it('gives every Cluster its execution space and the cluster finalizer', async () => {
    for (const cluster of [DFW_1, DFW_2, ORD_1]) {
      await h.eventually(() => h.hub(NAMESPACES).get(`karmada-es-${cluster}`), `karmada-es-${cluster}`);
      const held = await h.eventually(async () => {
        const found = await h.hub<Cluster>(CLUSTERS).get(cluster);
        return found?.metadata.finalizers?.includes('karmada.io/cluster-controller') ? found : undefined;
      }, `the finalizer on ${cluster}`);
      assert.ok(held);
    }
  });

  it('stops updating a namespace labelled to skip, deletes nothing, and deletes it once the hub namespace is gone', async () => {
    const namespaces = h.hub(NAMESPACES);
    await namespaces.create({ metadata: { name: 'ns-gone', labels: { stage: 'one' } } });
    const carried = () => h.member(DFW_1, NAMESPACES).get('ns-gone');
    await h.eventually(
      async () => ((await carried())?.metadata.labels?.stage === 'one' ? true : undefined),
      'ns-gone carried',
    );
    await namespaces.patchMerge('ns-gone', undefined, {
      metadata: { labels: { stage: 'two', 'namespace.karmada.io/skip-auto-propagation': 'true' } },
    });
    await h.idle();
    assert.equal((await carried())?.metadata.labels?.stage, 'one', 'no further updates');
    await namespaces.delete('ns-gone');
    await h.eventually(async () => ((await carried()) ? undefined : true), 'the member namespace deleted');
    assert.equal(await h.hub(WORKS).get(workName('Namespace', 'ns-gone'), `karmada-es-${DFW_1}`), undefined);
  });
});
