/**
 * Propagation scenarios, scheduling (propagation.md §9, scenarios 18–25): the affinity filter,
 * first fit over `clusterAffinities`, readiness, and NoClusterFit — against a hub and member
 * planes, with the engine in embedded mode on a fake clock.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import {
  CLUSTERS,
  conditionOf,
  contextTemplate,
  converge,
  copyOn,
  CPPS,
  DFW_1,
  DFW_2,
  EVENTS,
  NAMESPACES,
  NC_API_VERSION,
  NCS,
  NS_A,
  ORD_1,
  placedOn,
  rbOf,
  startPropagationHarness,
  TEMPLATE,
  waitCopy,
  waitPlaced,
  workIn,
  type Policy,
  type PropagationHarness,
} from '../support/propagation-harness.ts';

const LOCATION = 'networking.datumapis.com/location';
const CLUSTER_LOCATION = 'topology.datum.net/location';

let h: PropagationHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function harness(): Promise<PropagationHarness> {
  h = await startPropagationHarness();
  return h;
}

function placedBy(placement: Policy['spec']['placement'], name = 'placed'): Policy {
  return {
    metadata: { name },
    spec: {
      resourceSelectors: [
        {
          apiVersion: NC_API_VERSION,
          kind: 'NetworkContext',
          labelSelector: { matchLabels: { [LOCATION]: 'dfw' } },
        },
      ],
      placement,
    },
  };
}

const locationIs = (location: string) => ({ matchLabels: { [CLUSTER_LOCATION]: location } });

async function setPlacement(
  h: PropagationHarness,
  placement: Policy['spec']['placement'],
  name = 'placed',
): Promise<void> {
  const policy = (await h.hub<Policy>(CPPS).get(name))!;
  await h.hub<Policy>(CPPS).update({ ...policy, spec: { ...policy.spec, placement } });
}

async function dropLocationLabel(h: PropagationHarness, cluster: string): Promise<void> {
  await h
    .hub<Cluster>(CLUSTERS)
    .patchMerge(cluster, undefined, { metadata: { labels: { [CLUSTER_LOCATION]: null } } });
}

describe('propagation: scheduling', () => {
  it('P18 exclude, label selector and cluster names narrow the clusters', async () => {
    const h = await harness();
    await h
      .hub<Policy>(CPPS)
      .create(placedBy({ clusterAffinity: { labelSelector: locationIs('dfw'), exclude: [DFW_2] } }));
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [DFW_1]);

    await setPlacement(h, {
      clusterAffinity: { exclude: [], clusterNames: [DFW_2, ORD_1], labelSelector: locationIs('dfw') },
    });
    await waitPlaced(h, [DFW_2]);
  });

  it('P19 the field selector reads provider, region and zones', async () => {
    const h = await harness();
    const specs: Record<string, Record<string, unknown>> = {
      [DFW_1]: { provider: 'gcp', region: 'us-south', zones: ['a'] },
      [DFW_2]: { provider: 'gcp', region: 'us-south', zones: [] },
      [ORD_1]: { provider: 'aws', region: 'us-central', zones: ['a', 'b'] },
    };
    for (const [cluster, spec] of Object.entries(specs))
      await h.hub<Cluster>(CLUSTERS).patchMerge(cluster, undefined, { spec });
    const fields = (...matchExpressions: { key: string; operator: string; values?: string[] }[]) => ({
      clusterAffinity: { fieldSelector: { matchExpressions } },
    });
    await h
      .hub<Policy>(CPPS)
      .create(
        placedBy(
          fields({ key: 'provider', operator: 'In', values: ['gcp'] }, { key: 'zone', operator: 'Exists' }),
        ),
      );
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [DFW_1]);

    await setPlacement(h, fields({ key: 'region', operator: 'NotIn', values: ['us-south'] }));
    await waitPlaced(h, [ORD_1]);

    await setPlacement(h, fields({ key: 'zone', operator: 'DoesNotExist' }));
    await waitPlaced(h, [DFW_2]);
  });

  it('P20 clusterAffinities fall back to the first term that fits', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(
      placedBy({
        clusterAffinities: [
          { affinityName: 'primary', labelSelector: locationIs('ams') },
          { affinityName: 'fallback', labelSelector: locationIs('dfw') },
        ],
      }),
    );
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    const rb = await waitPlaced(h, [DFW_1, DFW_2]);
    assert.equal(rb.status?.schedulerObservingAffinityName, 'fallback');
    assert.equal(conditionOf(rb, 'Scheduled')?.status, 'True');
  });

  it('P21 a binding never returns to an earlier term by itself', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(
      placedBy({
        clusterAffinities: [
          { affinityName: 'primary', labelSelector: locationIs('ams') },
          { affinityName: 'fallback', labelSelector: locationIs('dfw') },
        ],
      }),
    );
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [DFW_1, DFW_2]);
    await h.addCluster('cell-ams-1', { [CLUSTER_LOCATION]: 'ams' });
    await h.eventually(
      async () => ((await h.hub(NAMESPACES).get('karmada-es-cell-ams-1')) ? true : undefined),
      'the engine to take up cell-ams-1',
    );
    await h.idle();
    const rb = (await rbOf(h))!;
    assert.deepEqual(placedOn(rb), [DFW_1, DFW_2]);
    assert.equal(rb.status?.schedulerObservingAffinityName, 'fallback');
    assert.equal(await copyOn(h, 'cell-ams-1'), undefined);
  });

  it('a placement setting both affinity forms is scheduled with clusterAffinity alone, and warned about', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(
      placedBy({
        clusterAffinity: { clusterNames: [ORD_1] },
        clusterAffinities: [{ affinityName: 'dfw', labelSelector: locationIs('dfw') }],
      }),
    );
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [ORD_1]);
    const warning = await h.eventually(async () => {
      const events = (await h.hub(EVENTS).list({ namespace: 'default' })).items;
      return events.find((event) => event.reason === 'InvalidPlacement');
    }, 'the InvalidPlacement Event');
    assert.equal(warning.type, 'Warning');
    assert.equal((warning.regarding as { name: string }).name, 'placed');
    assert.match(String(warning.note), /clusterAffinities is being ignored/);
  });

  it('P22 an unready cluster is not newly selected, and is once it is ready', async () => {
    const h = await harness();
    await h.setReady(DFW_2, 'False');
    await h.hub<Policy>(CPPS).create(placedBy({ clusterAffinity: { labelSelector: locationIs('dfw') } }));
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [DFW_1]);

    await h.setReady(DFW_2, 'True');
    await waitPlaced(h, [DFW_1, DFW_2]);
    await waitCopy(h, DFW_2, (copy) => copy !== undefined, 'the copy');
  });

  it('P23 an unready cluster keeps its placement and its Work follows the template', async () => {
    const h = await harness();
    const { rb } = await converge(h);
    await h.setReady(DFW_2, 'False');
    await h.idle();
    await h.hub<NetworkContext>(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1500 } });
    await waitCopy(h, DFW_1, (copy) => copy?.spec.mtu === 1500, 'the copy with the new spec');
    const work = await h.eventually(async () => {
      const held = await workIn(h, DFW_2);
      const manifest = held?.spec?.workload?.manifests?.[0] as NetworkContext | undefined;
      return manifest?.spec.mtu === 1500 ? held : undefined;
    }, 'the dfw-2 Work holding the new manifest');
    await h.idle();
    assert.deepEqual(placedOn(await rbOf(h)), placedOn(rb));
    assert.equal(conditionOf(await workIn(h, DFW_2), 'Applied')?.status, 'True');
    assert.ok(work);
    assert.equal((await copyOn(h, DFW_2))?.spec.mtu, 1400);

    await h.setReady(DFW_2, 'True');
    await waitCopy(h, DFW_2, (copy) => copy?.spec.mtu === 1500, 'the copy with the new spec');
  });

  it('P24 no cluster fits: the clusters empty, Works and copies go, NoClusterFit', async () => {
    const h = await harness();
    await converge(h);
    await dropLocationLabel(h, DFW_1);
    await dropLocationLabel(h, DFW_2);
    const rb = await waitPlaced(h, [], 'False');
    const scheduled = conditionOf(rb, 'Scheduled');
    assert.equal(scheduled?.status, 'False');
    assert.equal(scheduled?.reason, 'NoClusterFit');
    assert.ok(scheduled?.message.startsWith('0/3 clusters are available:'), scheduled?.message);
    for (const cluster of [DFW_1, DFW_2]) {
      await h.eventually(
        async () => ((await workIn(h, cluster)) ? undefined : true),
        `the ${cluster} Work gone`,
      );
      await waitCopy(h, cluster, (copy) => copy === undefined, 'the copy deleted');
    }
  });

  it('P25 an unready cluster losing its label is dropped; its copy goes once it is ready', async () => {
    const h = await harness();
    await converge(h);
    await h.setReady(DFW_2, 'False');
    await dropLocationLabel(h, DFW_2);
    await waitPlaced(h, [DFW_1], undefined);
    const work = await h.eventually(async () => {
      const held = await workIn(h, DFW_2);
      return held?.metadata.deletionTimestamp ? held : undefined;
    }, 'the dfw-2 Work terminating');
    assert.ok(work.metadata.deletionTimestamp);
    await h.idle();
    assert.ok(await copyOn(h, DFW_2), 'the dfw-2 copy remains while the cluster is unready');

    await h.setReady(DFW_2, 'True');
    await waitCopy(h, DFW_2, (copy) => copy === undefined, 'the copy deleted');
    await h.eventually(async () => ((await workIn(h, DFW_2)) ? undefined : true), 'the dfw-2 Work gone');
  });
});
