/**
 * Clusters joining and leaving, and deletion (propagation.md §1.2, §7; scenarios 26, 27 and
 * 42–45 of §9): the embedded engine on a fake clock against a hub plane and member planes,
 * through the real HTTP API.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { KubeObject } from '../../src/client/types.ts';
import {
  CLUSTERS,
  DFW_1,
  DFW_2,
  GATEWAYS_LABEL,
  NAMESPACES,
  NCS,
  NS_A,
  TEMPLATE,
  WORKS,
  conditionOf,
  contextTemplate,
  converge,
  copyOn,
  locationPolicy,
  rbOf,
  startPropagationHarness,
  waitCopy,
  waitPlaced,
  workIn,
  type PropagationHarness,
} from '../support/propagation-harness.ts';

const DFW_3 = 'cell-dfw-3';
const MANAGED = 'karmada.io/managed';
const HOLD = 'cell.example/hold';
const CONFIG_MAPS = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };

const isManaged = (object: KubeObject | undefined) => object?.metadata.labels?.[MANAGED] === 'true';

/** Waits until `read` answers nothing. */
function waitGone(h: PropagationHarness, read: () => Promise<unknown>, what: string): Promise<true> {
  return h.eventually(async () => ((await read()) === undefined ? true : undefined), `${what} gone`);
}

/** The template deleted, and its RB and both dfw Works gone from the hub. */
async function deleteTemplate(h: PropagationHarness): Promise<void> {
  await h.hub(NCS).delete(TEMPLATE, NS_A);
  await waitGone(h, () => rbOf(h), 'the RB');
  for (const cluster of [DFW_1, DFW_2]) await waitGone(h, () => workIn(h, cluster), `the Work of ${cluster}`);
}

/** `cell-dfw-1`'s copy held by a member finalizer, the template deleted: the copy terminates. */
async function holdAndDelete(h: PropagationHarness): Promise<NetworkContext> {
  await converge(h);
  await h.member(DFW_1, NCS).patchMerge(TEMPLATE, NS_A, { metadata: { finalizers: [HOLD] } });
  await deleteTemplate(h);
  await waitGone(h, () => copyOn(h, DFW_2), "cell-dfw-2's copy");
  return (await waitCopy(
    h,
    DFW_1,
    (c) => c?.metadata.deletionTimestamp !== undefined,
    'the copy terminating',
  ))!;
}

describe('propagation: clusters joining and leaving', () => {
  let h: PropagationHarness;
  beforeEach(async () => {
    h = await startPropagationHarness();
  });
  afterEach(async () => {
    await h.stop();
  });

  it('P26 a cluster joins: its execution space, namespaces and copies appear', async () => {
    await converge(h);
    await h.addCluster(DFW_3, { [CLUSTER_LOCATION_LABEL]: 'dfw', [GATEWAYS_LABEL]: 'enabled' });
    await h.eventually(() => h.hub(NAMESPACES).get(`karmada-es-${DFW_3}`), 'the execution space');
    const namespace = await h.eventually(async () => {
      const found = await h.member(DFW_3, NAMESPACES).get(NS_A);
      return isManaged(found) ? found : undefined;
    }, 'namespace ns-a on cell-dfw-3');
    assert.ok(isManaged(namespace));
    await waitCopy(h, DFW_3, isManaged, 'the managed copy');
    await waitPlaced(h, [DFW_1, DFW_2, DFW_3]);
  });

  it('P27 a ready cluster deleted: its copies and managed namespace go, then its Works, space and Cluster', async () => {
    await converge(h);
    await h.eventually(() => h.member(DFW_2, NAMESPACES).get(NS_A), 'namespace ns-a on cell-dfw-2');
    await h.hub(CLUSTERS).delete(DFW_2);
    await waitGone(h, () => copyOn(h, DFW_2), "cell-dfw-2's copy");
    await waitGone(h, () => h.member(DFW_2, NAMESPACES).get(NS_A), "cell-dfw-2's namespace ns-a");
    await waitGone(h, () => h.hub(CLUSTERS).get(DFW_2), 'the Cluster');
    await waitGone(h, () => h.hub(NAMESPACES).get(`karmada-es-${DFW_2}`), 'the execution space');
    assert.deepEqual((await h.hub(WORKS).list({ namespace: `karmada-es-${DFW_2}` })).items, []);
    await waitPlaced(h, [DFW_1]);
  });

  it('P27 an unready cluster deleted: its copy remains on the member and the Cluster still goes', async () => {
    await converge(h);
    await h.setReady(DFW_2, 'False');
    await h.hub(CLUSTERS).delete(DFW_2);
    await waitGone(h, () => h.hub(CLUSTERS).get(DFW_2), 'the Cluster');
    await waitPlaced(h, [DFW_1]);
    const copy = await copyOn(h, DFW_2);
    assert.ok(copy, "cell-dfw-2's copy remains");
    assert.equal(copy.metadata.deletionTimestamp, undefined);
  });
});

describe('propagation: deletion', () => {
  let h: PropagationHarness;
  beforeEach(async () => {
    h = await startPropagationHarness();
  });
  afterEach(async () => {
    await h.stop();
  });

  it('P42 template deleted: binding, Works and copies go, and the copy is deleted in the background', async () => {
    await converge(h);
    const copy = (await copyOn(h, DFW_1))!;
    await h.member(DFW_1, CONFIG_MAPS).create({
      metadata: {
        name: 'owned',
        namespace: NS_A,
        ownerReferences: [
          { apiVersion: copy.apiVersion!, kind: copy.kind!, name: TEMPLATE, uid: copy.metadata.uid! },
        ],
      },
    });
    await deleteTemplate(h);
    await waitGone(h, () => copyOn(h, DFW_1), "cell-dfw-1's copy");
    await waitGone(h, () => copyOn(h, DFW_2), "cell-dfw-2's copy");
    await waitGone(h, () => h.member(DFW_1, CONFIG_MAPS).get('owned', NS_A), 'the owned object');
  });

  it('P43 a copy held by a member finalizer lingers after the hub lets go, and is not recreated', async () => {
    await holdAndDelete(h);
    await h.member(DFW_1, NCS).patchMerge(TEMPLATE, NS_A, { metadata: { finalizers: null } });
    await waitGone(h, () => copyOn(h, DFW_1), "cell-dfw-1's copy");
    await h.idle();
    assert.equal(await copyOn(h, DFW_1), undefined);
  });

  it('P44 the template returns while its copy terminates: the copy follows it and comes back live', async () => {
    await holdAndDelete(h);
    const template = await h.hub<NetworkContext>(NCS).create(contextTemplate({ mtu: 1350 }));
    await h.eventually(() => rbOf(h), 'the new RB');
    const terminating = await waitCopy(
      h,
      DFW_1,
      (c) => c?.metadata.annotations?.['resourcetemplate.karmada.io/uid'] === template.metadata.uid,
      'the terminating copy updated',
    );
    assert.equal(terminating!.spec.mtu, 1350);
    assert.ok(terminating!.metadata.deletionTimestamp);
    await h.member(DFW_1, NCS).patchMerge(TEMPLATE, NS_A, { metadata: { finalizers: null } });
    const live = await waitCopy(
      h,
      DFW_1,
      (c) => c !== undefined && c.metadata.deletionTimestamp === undefined,
      'the copy created again',
    );
    assert.equal(live!.spec.mtu, 1350);
    assert.equal(live!.metadata.annotations!['resourcetemplate.karmada.io/uid'], template.metadata.uid);
    await waitPlaced(h, [DFW_1, DFW_2], 'True');
  });
});

describe('propagation: preserveResourcesOnDeletion', () => {
  let h: PropagationHarness;
  beforeEach(async () => {
    h = await startPropagationHarness();
  });
  afterEach(async () => {
    await h.stop();
  });

  const ENGINE_LABELS = [MANAGED, 'resourcebinding.karmada.io/permanent-id', 'work.karmada.io/permanent-id'];
  const ENGINE_ANNOTATIONS = [
    'resourcetemplate.karmada.io/managed-annotations',
    'resourcetemplate.karmada.io/managed-labels',
    'resourcebinding.karmada.io/namespace',
    'resourcebinding.karmada.io/name',
    'resourcetemplate.karmada.io/uid',
    'resourcetemplate.karmada.io/generation',
    'work.karmada.io/name',
    'work.karmada.io/namespace',
  ];

  /** The copy on `cluster` once it is preserved: unmanaged, with only the keys §7.4 keeps. */
  async function preservedOn(cluster: string, claimId: string): Promise<NetworkContext> {
    const copy = (await waitCopy(h, cluster, (c) => c !== undefined && !isManaged(c), 'the copy preserved'))!;
    for (const key of ENGINE_LABELS) assert.equal(copy.metadata.labels?.[key], undefined, key);
    for (const key of ENGINE_ANNOTATIONS) assert.equal(copy.metadata.annotations?.[key], undefined, key);
    assert.equal(copy.metadata.labels!['networking.datumapis.com/location'], 'dfw');
    assert.equal(copy.metadata.labels!['clusterpropagationpolicy.karmada.io/permanent-id'], claimId);
    assert.equal(copy.metadata.annotations!['clusterpropagationpolicy.karmada.io/name'], 'location-dfw');
    assert.equal(copy.metadata.annotations!['work.karmada.io/conflict-resolution'], 'abort');
    assert.equal(copy.metadata.deletionTimestamp, undefined);
    return copy;
  }

  it('P45 template deleted: both copies remain, stripped; the template returning is refused', async () => {
    await converge(h, locationPolicy('dfw', { preserveResourcesOnDeletion: true }));
    const claim = (await copyOn(h, DFW_1))!.metadata.labels![
      'clusterpropagationpolicy.karmada.io/permanent-id'
    ];
    await deleteTemplate(h);
    const preserved = [await preservedOn(DFW_1, claim), await preservedOn(DFW_2, claim)];

    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    for (const cluster of [DFW_1, DFW_2]) {
      const applied = await h.eventually(async () => {
        const condition = conditionOf(await workIn(h, cluster), 'Applied');
        return condition?.status === 'False' ? condition : undefined;
      }, `the abort on ${cluster}`);
      assert.ok(applied.message.includes(`already exists in the cluster ${cluster}`), applied.message);
    }
    await h.idle();
    for (const [index, cluster] of [DFW_1, DFW_2].entries())
      assert.equal(
        (await copyOn(h, cluster))!.metadata.resourceVersion,
        preserved[index].metadata.resourceVersion,
      );
  });

  it('P45 placement lost: the copy on the cluster that left remains, stripped the same way', async () => {
    await converge(h, locationPolicy('dfw', { preserveResourcesOnDeletion: true }));
    const claim = (await copyOn(h, DFW_2))!.metadata.labels![
      'clusterpropagationpolicy.karmada.io/permanent-id'
    ];
    await h
      .hub(CLUSTERS)
      .patchJson(DFW_2, undefined, [
        { op: 'remove', path: `/metadata/labels/${CLUSTER_LOCATION_LABEL.replace('/', '~1')}` },
      ]);
    await waitPlaced(h, [DFW_1]);
    await waitGone(h, () => workIn(h, DFW_2), "cell-dfw-2's Work");
    await preservedOn(DFW_2, claim);
    assert.ok(isManaged(await copyOn(h, DFW_1)));
  });
});
