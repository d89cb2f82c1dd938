/**
 * scenarios.md §3, the network controller (S12–S20): the controller against fixture F's project
 * plane (the default IPAM set, the allocation hook), with the networkcontext controller where a
 * scenario has contexts hold a /64. Contexts another controller would write are written by the
 * test.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Condition } from '../../src/apis/common/condition.ts';
import type { IPClaim } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import type { IPPool } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { Network } from '../../src/apis/networking/v1alpha/network.ts';
import type { ResourceClient } from '../../src/client/types.ts';
import type { ControllerDefinition } from '../../src/runtime/manager-context.ts';
import { networkController, networkControllerWith } from '../../src/controllers/project/network.ts';
import { networkContextController } from '../../src/controllers/project/networkcontext.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';
import { IP_ALLOCATIONS } from '../support/cell-fixtures.ts';
import {
  ALPHA,
  allGone,
  IP_CLAIMS,
  IP_POOLS,
  NETWORK_CONTEXTS,
  NETWORKS,
  planeOf,
  quiet,
  reconcileCount,
  runController,
  until,
  WITHIN,
} from '../support/project-fixtures.ts';

const PLANE = planeOf(ALPHA);
const NS = 'default';

function condition(object: { status?: { conditions?: Condition[] } } | undefined, type: string) {
  return object?.status?.conditions?.find((c) => c.type === type);
}

describe('network controller (scenarios.md §3)', () => {
  let s: Scenario | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function start(controllers: ControllerDefinition[], clock?: FakeClock): Promise<Scenario> {
    s = await startScenario({ projects: [ALPHA], controllers, clock });
    return s;
  }

  const networks = (scenario: Scenario) => scenario.client<Network>(PLANE, NETWORKS);
  const claims = (scenario: Scenario) => scenario.client<IPClaim>(PLANE, IP_CLAIMS);
  const pools = (scenario: Scenario) => scenario.client<IPPool>(PLANE, IP_POOLS);
  const contexts = (scenario: Scenario) => scenario.client<NetworkContext>(PLANE, NETWORK_CONTEXTS);

  function createNetwork(
    scenario: Scenario,
    name: string,
    spec: Partial<Network['spec']> = {},
  ): Promise<Network> {
    return networks(scenario).create({
      metadata: { name, namespace: NS },
      spec: { ipam: { mode: 'Auto' }, ...spec },
    });
  }

  /** Waits for `name` to hold a prefix and be Ready; returns it. */
  async function holding(scenario: Scenario, name: string, timeoutMs = WITHIN): Promise<Network> {
    let network: Network | undefined;
    await until(
      async () => {
        network = await networks(scenario).get(name, NS);
        return (
          network?.status?.ipam?.ipv6Prefix !== undefined && condition(network, 'Ready')?.status === 'True'
        );
      },
      timeoutMs,
      `network ${name} to hold its prefix`,
    );
    return network!;
  }

  async function ready(scenario: Scenario, name: string): Promise<Network> {
    let network: Network | undefined;
    await until(
      async () => condition((network = await networks(scenario).get(name, NS)), 'Ready')?.status === 'True',
      WITHIN,
      `${name} to be Ready`,
    );
    return network!;
  }

  /** A context the presence controller would write: controlled by `network`, named `<network>-<location>`. */
  function createContext(scenario: Scenario, network: Network, location: string): Promise<NetworkContext> {
    return contexts(scenario).create({
      metadata: {
        name: `${network.metadata.name}-${location}`,
        namespace: NS,
        ownerReferences: [
          {
            apiVersion: 'networking.datumapis.com/v1alpha',
            kind: 'Network',
            name: network.metadata.name!,
            uid: network.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        network: { name: network.metadata.name! },
        location: { name: location },
        ipFamilies: ['IPv6'],
        mtu: 1460,
      },
    });
  }

  it('S12 the network holds its /48', async () => {
    const scenario = await start([networkController]);
    await createNetwork(scenario, 'vpc');
    const vpc = await holding(scenario, 'vpc');
    assert.equal(vpc.status?.ipam?.ipv6Prefix, 'fd20::/48');
    assert.deepEqual(vpc.status?.ipam?.ipv6PrefixRef, {
      project: ALPHA,
      namespace: NS,
      claimName: `network-${vpc.metadata.uid}`,
      poolName: 'datum-network-v6-vpc',
    });
    const allocated = condition(vpc, 'IPAMAllocated');
    const ready = condition(vpc, 'Ready');
    assert.equal(allocated?.status, 'True');
    assert.equal(allocated?.reason, 'Allocated');
    assert.equal(allocated?.message, 'The network is addressed from fd20::/48');
    assert.equal(ready?.status, 'True');
    assert.equal(ready?.reason, 'Ready');
    assert.equal(ready?.message, 'The network is addressed from fd20::/48');
    assert.equal(ready?.observedGeneration, vpc.metadata.generation);
    assert.ok(vpc.metadata.finalizers?.includes('networking.datumapis.com/network-controller'));
    assert.ok(vpc.metadata.finalizers?.includes('networking.datumapis.com/network-prefix-release'));
  });

  it('S13 the claim holds a range, across an MTU edit and a restart', async () => {
    const scenario = await start([]);
    let controller = await runController(scenario.ctx, networkController);
    try {
      await createNetwork(scenario, 'vpc');
      const vpc = await holding(scenario, 'vpc');
      const expectClaim = async () => {
        const items = (await claims(scenario).list({ namespace: NS })).items;
        assert.deepEqual(
          items.map((c) => c.metadata.name),
          [`network-${vpc.metadata.uid}`],
        );
        const [claim] = items;
        assert.equal(claim.spec.target, 'ScopeRange');
        assert.equal(claim.spec.className, 'datum-network-v6');
        assert.equal(claim.spec.prefixLength, undefined);
        assert.deepEqual(claim.spec.scope, {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
        });
        assert.equal(claim.status?.allocatedCIDR, 'fd20::/48');
        assert.equal(claim.status?.poolRef?.name, 'datum-network-v6-vpc');
        assert.equal(claim.status?.boundAllocationRef, undefined);
      };
      await expectClaim();

      const edited = await networks(scenario).patchMerge('vpc', NS, { spec: { mtu: 1500 } });
      await until(
        async () =>
          condition(await networks(scenario).get('vpc', NS), 'Ready')?.observedGeneration ===
          edited.metadata.generation,
        WITHIN,
        'the MTU edit to be judged',
      );
      await controller.stop();
      const since = await reconcileCount(scenario.ctx, 'network');
      controller = await runController(scenario.ctx, networkController);
      await quiet(scenario.ctx, 'network', since);
      await expectClaim();
      assert.equal((await networks(scenario).get('vpc', NS))?.status?.ipam?.ipv6Prefix, 'fd20::/48');
    } finally {
      await controller.stop();
    }
  });

  it('S14 the next network gets the next /48', async () => {
    const scenario = await start([networkController]);
    await createNetwork(scenario, 'vpc');
    await holding(scenario, 'vpc');
    await createNetwork(scenario, 'db', { ipFamilies: ['IPv6'] });
    const db = await holding(scenario, 'db');
    assert.equal(db.status?.ipam?.ipv6Prefix, 'fd20:0:1::/48');
    assert.equal(db.status?.ipam?.ipv6PrefixRef?.poolName, 'datum-network-v6-db');
  });

  it('S15 networks that claim nothing, and a controller with no network class', async () => {
    let scenario = await start([networkController]);
    await createNetwork(scenario, 'v4', { ipFamilies: ['IPv4'] });
    await networks(scenario).create({
      metadata: { name: 'pol', namespace: NS },
      spec: { ipam: { mode: 'Policy' }, ipFamilies: ['IPv6'] },
    });
    for (const name of ['v4', 'pol']) {
      const network = await ready(scenario, name);
      assert.equal(condition(network, 'Ready')?.reason, 'Ready');
      assert.equal(condition(network, 'Ready')?.message, 'The network claims no address space');
      assert.equal(condition(network, 'IPAMAllocated'), undefined);
      assert.ok(!network.metadata.finalizers?.includes('networking.datumapis.com/network-prefix-release'));
    }
    assert.deepEqual((await claims(scenario).list({ namespace: NS })).items, []);
    await scenario.stop();

    scenario = await start([networkControllerWith({ networkClass: '' })]);
    await createNetwork(scenario, 'vpc');
    const vpc = await ready(scenario, 'vpc');
    assert.equal(condition(vpc, 'Ready')?.reason, 'Ready');
    assert.equal(
      condition(vpc, 'Ready')?.message,
      'No address service is configured, so the network is used without claimed address space',
    );
    assert.deepEqual((await claims(scenario).list({ namespace: NS })).items, []);
    await networks(scenario).delete('vpc', NS);
    await allGone([[networks(scenario), 'vpc', NS]]);
  });

  it('S16 an exhausted root is reported, and the backstop picks up the freed range', async () => {
    const clock = new FakeClock(Date.now());
    const scenario = await start([networkController], clock);
    await pools(scenario).delete('datum-network-v6-root');
    await pools(scenario).create({
      metadata: { name: 'datum-network-v6-root' },
      spec: { className: 'datum-network-v6', cidr: 'fd20::/48' },
    });
    await createNetwork(scenario, 'a');
    await holding(scenario, 'a');
    const since = await reconcileCount(scenario.ctx, 'network');
    await createNetwork(scenario, 'b');
    let b: Network | undefined;
    await until(
      async () => condition((b = await networks(scenario).get('b', NS)), 'IPAMAllocated')?.status === 'False',
      WITHIN,
      'b to be refused',
    );
    await quiet(scenario.ctx, 'network', since); // what b's own writes woke has been judged too
    const message =
      'No address is left for an address of class "datum-network-v6": IPPool "datum-network-v6-root" is exhausted';
    assert.equal(condition(b, 'IPAMAllocated')?.reason, 'AddressPoolExhausted');
    assert.equal(condition(b, 'IPAMAllocated')?.message, message);
    assert.equal(condition(b, 'Ready')?.status, 'False');
    assert.equal(condition(b, 'Ready')?.reason, 'AddressPoolExhausted');
    assert.equal(condition(b, 'Ready')?.message, message);
    assert.equal(b?.status?.ipam, undefined);

    await networks(scenario).delete('a', NS);
    await allGone([[networks(scenario), 'a', NS]]);
    assert.equal(condition(await networks(scenario).get('b', NS), 'IPAMAllocated')?.status, 'False');
    await clock.advance(60_000);
    const held = await holding(scenario, 'b');
    assert.equal(held.status?.ipam?.ipv6Prefix, 'fd20::/48');
  });

  it('S17 deletion releases the /48', async () => {
    const scenario = await start([networkController]);
    await createNetwork(scenario, 'vpc');
    const vpc = await holding(scenario, 'vpc');
    await networks(scenario).delete('vpc', NS);
    await allGone([
      [claims(scenario), `network-${vpc.metadata.uid}`, NS],
      [pools(scenario), 'datum-network-v6-vpc'],
      [networks(scenario), 'vpc', NS],
    ]);
  });

  it('S18 contexts go first, then the /48', async () => {
    const scenario = await start([networkController, networkContextController]);
    await createNetwork(scenario, 'vpc');
    const vpc = await holding(scenario, 'vpc');
    for (const location of ['us-central-1', 'eu-west-1']) await createContext(scenario, vpc, location);
    await until(
      async () => (await claims(scenario).list({ namespace: NS })).items.length === 3,
      WITHIN,
      'both contexts to hold a /64',
    );
    const deletions: { kind: string; name: string; revision: number }[] = [];
    const list = await claims(scenario).list({ namespace: NS });
    const handles = await Promise.all(
      [claims(scenario), contexts(scenario)].map((client: ResourceClient<any>) =>
        client.watch(
          { namespace: NS, resourceVersion: list.resourceVersion },
          (type, object) => {
            if (type === 'DELETED')
              deletions.push({
                kind: client.id.kind,
                name: object.metadata.name,
                revision: Number(object.metadata.resourceVersion),
              });
          },
          () => undefined,
        ),
      ),
    );
    try {
      await networks(scenario).delete('vpc', NS);
      await allGone([[networks(scenario), 'vpc', NS]], 5000);
      assert.deepEqual((await claims(scenario).list({ namespace: NS })).items, []);
      await until(
        () => deletions.some((d) => d.name === `network-${vpc.metadata.uid}`),
        WITHIN,
        'the /48 claim deletion to be seen',
      );
      const networkClaim = deletions.find((d) => d.name === `network-${vpc.metadata.uid}`)!;
      const contextDeletions = deletions.filter((d) => d.kind === 'NetworkContext');
      assert.deepEqual(contextDeletions.map((d) => d.name).sort(), ['vpc-eu-west-1', 'vpc-us-central-1']);
      for (const context of contextDeletions)
        assert.ok(context.revision < networkClaim.revision, `${context.name} went after the /48`);
    } finally {
      for (const handle of handles) handle.abort();
    }
  });

  it('S19 only its own contexts are deleted', async () => {
    const scenario = await start([networkController]);
    const alpha = await createNetwork(scenario, 'alpha', { ipFamilies: ['IPv4'] });
    const beta = await createNetwork(scenario, 'beta', { ipFamilies: ['IPv4'] });
    const make = (name: string, network: string, controller?: Network) =>
      contexts(scenario).create({
        metadata: {
          name,
          namespace: NS,
          ...(controller && {
            ownerReferences: [
              {
                apiVersion: 'networking.datumapis.com/v1alpha',
                kind: 'Network',
                name: controller.metadata.name!,
                uid: controller.metadata.uid!,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }),
        },
        spec: { network: { name: network }, location: { name: 'us-central-1' } },
      });
    await make('alpha-owned', 'alpha', alpha);
    await make('alpha-ownerless', 'alpha');
    await make('beta-owned', 'beta', beta);
    await make('beta-ownerless', 'beta');
    await make('beta-owned-naming-alpha', 'alpha', beta);
    await until(
      async () => (await networks(scenario).get('alpha', NS))?.metadata.finalizers?.length === 1,
      WITHIN,
      'alpha to carry its finalizer',
    );
    await networks(scenario).delete('alpha', NS);
    await allGone([[networks(scenario), 'alpha', NS]]);
    const remaining = (await contexts(scenario).list({ namespace: NS })).items
      .map((c) => c.metadata.name)
      .sort();
    assert.deepEqual(remaining, ['beta-owned', 'beta-owned-naming-alpha', 'beta-ownerless']);
  });

  it('S20 an occupied release waits, then proceeds as soon as the range empties', async () => {
    const scenario = await start([networkController]);
    await createNetwork(scenario, 'vpc');
    await holding(scenario, 'vpc');
    await claims(scenario).create({
      metadata: { name: 'stray', namespace: NS },
      spec: {
        className: 'datum-subnet-v6',
        target: 'ScopeRange',
        scope: {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
          location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: 'zz' },
        },
      },
    });
    await networks(scenario).delete('vpc', NS);
    let vpc: Network | undefined;
    await until(
      async () =>
        condition((vpc = await networks(scenario).get('vpc', NS)), 'IPAMAllocated')?.status === 'False',
      WITHIN,
      'vpc to report its range occupied',
    );
    const message =
      'the network\'s address space still has addresses allocated inside it: IPPool "datum-network-v6-vpc" still has 1 allocation(s) inside it';
    assert.equal(condition(vpc, 'IPAMAllocated')?.reason, 'RangeOccupied');
    assert.equal(condition(vpc, 'IPAMAllocated')?.message, message);
    assert.equal(condition(vpc, 'Ready')?.status, 'False');
    assert.equal(condition(vpc, 'Ready')?.reason, 'RangeOccupied');
    assert.ok(await networks(scenario).get('vpc', NS), 'the network went while its range was occupied');
    await claims(scenario).delete('stray', NS);
    await allGone([[networks(scenario), 'vpc', NS]]);
  });

  // Found by the fleet model (test/chaos): a cell drew an interface address for a network whose
  // context had just given its /64 back, so IPAM provisioned the subnet range again inside the
  // /48; the network's release, refused meanwhile, waited for the 60 s backstop once it was freed.
  for (const reclaimPolicy of ['Delete', 'Retain'] as const)
    it(`a deleting network is released as soon as an interface address drawn after its context went is freed (${reclaimPolicy}), without the backstop`, async () => {
      const clock = new FakeClock(Date.now());
      const scenario = await start([networkController], clock);
      await createNetwork(scenario, 'vpc');
      await holding(scenario, 'vpc');
      // What a cell's claim controller asks for an interface (allocation.ts): an address of the
      // network at a location that has no context (no /64) any more.
      await claims(scenario).create({
        metadata: { name: 'late-0.cell-a-f-ipv6', namespace: NS },
        spec: {
          ipFamily: 'IPv6',
          reclaimPolicy,
          scope: {
            network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
            location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: 'us-central-1' },
          },
        },
      });
      await until(
        async () => (await pools(scenario).get('datum-subnet-v6-vpc-us-central-1')) !== undefined,
        WITHIN,
        'the subnet range to be provisioned inside the /48',
      );
      await networks(scenario).delete('vpc', NS);
      await until(
        async () =>
          condition(await networks(scenario).get('vpc', NS), 'IPAMAllocated')?.reason === 'RangeOccupied',
        WITHIN,
        'vpc to report its range occupied',
      );
      // Whatever the refusal's own writes woke has been judged: the network now waits.
      await quiet(scenario.ctx, 'network', 0);
      await claims(scenario).delete('late-0.cell-a-f-ipv6', NS);
      // Retain keeps the address until its IPAllocation is deleted (what the claim controller does next).
      if (reclaimPolicy === 'Retain')
        await scenario.client(PLANE, IP_ALLOCATIONS).delete('late-0.cell-a-f-ipv6', NS);
      // The fake clock never reaches the backstop: only a watch can wake the network.
      await allGone([[networks(scenario), 'vpc', NS]]);
      assert.equal(await pools(scenario).get('datum-network-v6-vpc'), undefined, 'the /48 went with it');
    });
});
