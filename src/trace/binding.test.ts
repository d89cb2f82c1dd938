import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NetworkBindingReason } from '../apis/networking/v1alpha/network-binding.ts';
import { advice, ipamAdvice } from './advice.ts';
import { traceBinding } from './binding.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT } from './contexts.ts';
import type { HopId } from './hop.ts';
import { Kinds } from './reader.ts';
import { renderVerdict } from './render.ts';
import {
  BINDING,
  CELL,
  condition,
  CONTEXT,
  HUB_NS,
  LOCATION,
  NETWORK,
  PROJECT,
  PROJECT_PLANE,
  SUBNET,
  TestWorld,
} from '../../test/support/trace-world.ts';
import { exitCodeOf, verdictOf } from './verdict.ts';

const ref = { namespace: HUB_NS, name: BINDING };

async function verdict(world: TestWorld) {
  const hops = await traceBinding(world.reader, ref);
  return { hops, verdict: verdictOf(hops), exit: exitCodeOf(hops) };
}

/** One case per way a binding is refused: how to produce it, the hop it names and the advice. */
interface RefusalCase {
  title: string;
  reason: string;
  arrange(world: TestWorld): Promise<void>;
  hop: HopId;
  advice: string;
}

const refusals: RefusalCase[] = [
  {
    title: 'an unlabelled hub namespace',
    reason: NetworkBindingReason.ProjectUnresolved,
    arrange: (w) =>
      w.edit(HUB_CONTEXT, Kinds.namespace, HUB_NS, undefined, (ns) => void (ns.metadata.labels = {})),
    hop: 'hub-namespace',
    advice: advice.hubNamespaceUnlabelled(HUB_NS),
  },
  {
    title: 'a project that is not Ready',
    reason: NetworkBindingReason.ProjectUnresolved,
    arrange: (w) =>
      w.edit(PLATFORM_CONTEXT, Kinds.project, PROJECT, undefined, (project) => {
        project.status = { conditions: [condition('Ready', 'False', 'Provisioning')] };
      }),
    hop: 'project',
    advice: advice.projectNotReady(PROJECT),
  },
  {
    title: 'a missing Network',
    reason: NetworkBindingReason.NetworkNotFound,
    arrange: async (w) => void w.reader.remove(PROJECT_PLANE, Kinds.network, NETWORK, 'default'),
    hop: 'network',
    advice: advice.networkMissing(PROJECT, 'default', NETWORK),
  },
  {
    title: 'a binding naming another namespace',
    reason: NetworkBindingReason.NetworkNotFound,
    arrange: (w) =>
      w.edit(HUB_CONTEXT, Kinds.networkBinding, BINDING, HUB_NS, (binding) => {
        (binding.spec as { network: { namespace?: string } }).network.namespace = 'other';
      }),
    hop: 'network',
    advice: advice.misdirectedNetwork('default'),
  },
  {
    title: 'a Network being deleted',
    reason: NetworkBindingReason.NetworkNotFound,
    arrange: (w) =>
      w.edit(PROJECT_PLANE, Kinds.network, NETWORK, 'default', (network) => {
        network.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      }),
    hop: 'network',
    advice: advice.networkDeleting(NETWORK),
  },
  {
    title: 'a missing LocationBinding',
    reason: NetworkBindingReason.LocationNotAvailable,
    arrange: async (w) => void w.reader.remove(PROJECT_PLANE, Kinds.locationBinding, LOCATION),
    hop: 'location-binding',
    advice: advice.locationBindingMissing(PROJECT, LOCATION),
  },
  {
    title: 'a context name held by another pair',
    reason: NetworkBindingReason.NetworkContextNameConflict,
    arrange: (w) =>
      w.edit(PROJECT_PLANE, Kinds.networkContext, CONTEXT, 'default', (context) => {
        context.spec = { network: { name: 'vpc-us' }, location: { name: 'central-1' } };
      }),
    hop: 'project-context',
    advice: advice.nameConflict(CONTEXT),
  },
  {
    title: 'a context whose /64 cannot be allocated',
    reason: NetworkBindingReason.NetworkContextNotReady,
    arrange: (w) =>
      w.edit(PROJECT_PLANE, Kinds.networkContext, CONTEXT, 'default', (context) => {
        context.status = {
          conditions: [condition('Ready', 'False', 'AddressPoolExhausted', 'No address is left')],
        };
      }),
    hop: 'project-context',
    advice: ipamAdvice('AddressPoolExhausted', PROJECT),
  },
  {
    title: 'a context being deleted',
    reason: NetworkBindingReason.NetworkContextNotReady,
    arrange: (w) =>
      w.edit(PROJECT_PLANE, Kinds.networkContext, CONTEXT, 'default', (context) => {
        context.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      }),
    hop: 'project-context',
    advice: advice.contextDeleting(CONTEXT),
  },
  {
    title: 'a context of an earlier network of the same name',
    reason: NetworkBindingReason.NetworkContextNotReady,
    arrange: (w) =>
      w.edit(
        PROJECT_PLANE,
        Kinds.network,
        NETWORK,
        'default',
        (network) => void (network.metadata.uid = 'n2'),
      ),
    hop: 'project-context',
    advice: advice.contextOfEarlierNetwork(CONTEXT),
  },
];

describe('traceBinding', () => {
  it('a binding whose every hop is present and Ready has no verdict and exits 0', async () => {
    const { hops, verdict: found, exit } = await verdict(new TestWorld());
    assert.equal(found, undefined);
    assert.equal(exit, 0);
    assert.deepEqual(
      hops.map((hop) => hop.id),
      [
        'binding',
        'hub-namespace',
        'project',
        'project-namespace',
        'location-binding',
        'network',
        'project-context',
        'project-subnet',
        'hub-context',
        'hub-subnet',
        'policy',
        'cluster',
        'cell-context',
        'cell-subnet',
      ],
    );
    assert.match(hops.find((hop) => hop.id === 'project-subnet')!.note!, /data plane/);
    assert.equal(renderVerdict(hops), 'verdict: every hop is present and Ready');
  });

  for (const refusal of refusals) {
    it(`${refusal.reason} from ${refusal.title} names the ${refusal.hop} hop`, async () => {
      const world = new TestWorld();
      await refusal.arrange(world);
      await world.bindingReports(refusal.reason);
      const { verdict: found, exit } = await verdict(world);
      assert.equal(found?.hop.id, refusal.hop);
      assert.equal(found?.reportedBy?.id, 'binding');
      assert.equal(found?.hop.advice, refusal.advice);
      assert.equal(exit, 1);
    });
  }

  it('every binding refusal reason has a case naming its hop', () => {
    const refusalReasons = Object.values(NetworkBindingReason).filter(
      (reason) =>
        reason !== NetworkBindingReason.Pending && reason !== NetworkBindingReason.NetworkContextReady,
    );
    assert.deepEqual(new Set(refusals.map((refusal) => refusal.reason)), new Set(refusalReasons));
  });

  it('a Pending binding is judged by no controller: the advice is to check the manager', async () => {
    const world = new TestWorld();
    await world.bindingReports(NetworkBindingReason.Pending, 'Unknown');
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'binding');
    assert.equal(found?.hop.advice, advice.bindingPending);
  });

  it('a refusal whose cause is fixed now is reported as stale on the binding', async () => {
    const world = new TestWorld();
    await world.bindingReports(NetworkBindingReason.LocationNotAvailable);
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'binding');
    assert.equal(found?.hop.advice, advice.bindingStale(NetworkBindingReason.LocationNotAvailable));
  });

  it('a context not Ready because its Network holds no range names the Network, the first cause', async () => {
    const world = new TestWorld();
    await world.edit(PROJECT_PLANE, Kinds.network, NETWORK, 'default', (network) => {
      network.status = {
        conditions: [condition('Ready', 'False', 'AddressPoolExhausted', 'No address is left')],
      };
    });
    await world.edit(PROJECT_PLANE, Kinds.networkContext, CONTEXT, 'default', (context) => {
      context.status = { conditions: [condition('Ready', 'False', 'AllocationFailed', 'no /48')] };
    });
    await world.bindingReports(NetworkBindingReason.NetworkContextNotReady);
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'network');
    assert.equal(found?.hop.advice, ipamAdvice('AddressPoolExhausted', PROJECT));
  });

  it('a missing binding is the only hop', async () => {
    const world = new TestWorld();
    world.reader.remove(HUB_CONTEXT, Kinds.networkBinding, BINDING, HUB_NS);
    const { hops, verdict: found } = await verdict(world);
    assert.equal(hops.length, 1);
    assert.equal(found?.hop.state, 'missing');
    assert.equal(found?.hop.advice, advice.bindingMissing(HUB_NS, BINDING));
  });

  it('a Ready binding whose hub copy is missing names the hub copy and the replicator', async () => {
    const world = new TestWorld();
    world.reader.remove(HUB_CONTEXT, Kinds.networkContext, CONTEXT, HUB_NS);
    const { hops, verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'hub-context');
    assert.equal(found?.hop.advice, advice.copyMissing);
    assert.equal(
      hops.find((hop) => hop.id === 'cell-context'),
      undefined,
      'cells are not looked at',
    );
  });

  it('a hub copy that differs from its source is stale', async () => {
    const world = new TestWorld();
    await world.edit(HUB_CONTEXT, Kinds.subnet, SUBNET, HUB_NS, (subnet) => {
      (subnet.spec as { prefixLength: number }).prefixLength = 60;
    });
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'hub-subnet');
    assert.equal(found?.hop.advice, advice.copyStale);
  });

  it('a policy no propagation engine took up names the engine', async () => {
    const world = new TestWorld();
    await world.edit(
      HUB_CONTEXT,
      Kinds.clusterPropagationPolicy,
      `location-${LOCATION}`,
      undefined,
      (policy) => {
        policy.metadata.labels = {};
      },
    );
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'policy');
    assert.equal(found?.hop.advice, advice.policyUnclaimed(LOCATION));
  });

  it('no Cluster labelled for the location names the label to set', async () => {
    const world = new TestWorld();
    await world.edit(
      HUB_CONTEXT,
      Kinds.cluster,
      CELL,
      undefined,
      (cluster) => void (cluster.metadata.labels = {}),
    );
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'cells');
    assert.equal(found?.hop.advice, advice.noCells(LOCATION));
  });

  it('a cell copy missing from a Ready cluster names propagation and the cluster label', async () => {
    const world = new TestWorld();
    world.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'cell-context');
    assert.equal(found?.hop.plane, CELL);
    assert.equal(found?.hop.advice, advice.cellCopyMissing(CELL, LOCATION));
  });

  it('a cluster that is not Ready is named before its copies', async () => {
    const world = new TestWorld();
    await world.edit(HUB_CONTEXT, Kinds.cluster, CELL, undefined, (cluster) => {
      cluster.status = { conditions: [condition('Ready', 'False', 'ClusterNotReachable')] };
    });
    world.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'cluster');
    assert.equal(found?.hop.advice, advice.clusterNotReady(CELL));
  });

  it('an unreadable project plane is named, and what lies below it is not checked', async () => {
    const world = new TestWorld();
    world.reader.cutOff(PROJECT_PLANE);
    const { hops, verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'project-namespace');
    assert.equal(found?.hop.state, 'unreachable');
    assert.equal(found?.hop.advice, advice.planeUnreadable(PROJECT_PLANE));
    assert.equal(hops.find((hop) => hop.id === 'network')?.state, 'unchecked');
  });

  it('a hub namespace left from an earlier project namespace names the current one', async () => {
    const world = new TestWorld();
    await world.edit(
      PROJECT_PLANE,
      Kinds.namespace,
      'default',
      undefined,
      (ns) => void (ns.metadata.uid = 'u2'),
    );
    const { verdict: found } = await verdict(world);
    assert.equal(found?.hop.id, 'project-namespace');
    assert.equal(found?.hop.advice, advice.projectNamespaceReplaced(HUB_NS, 'ns-u2'));
  });
});
