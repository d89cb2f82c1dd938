/**
 * scenarios.md §4, the networkcontext controller (S21–S28): the controller with the network
 * controller (scenario 12's `vpc` holding `fd20::/48`) against fixture F's project plane.
 * Contexts the presence controller would write, and the data plane's `Programmed`, are written
 * by the test.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Condition } from '../../src/apis/common/condition.ts';
import { ipAllocationKind, type IPAllocation } from '../../src/apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClass } from '../../src/apis/ipam/v1alpha1/ip-class.ts';
import type { IPPool } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { Network } from '../../src/apis/networking/v1alpha/network.ts';
import type { Subnet } from '../../src/apis/networking/v1alpha/subnet.ts';
import type { ControllerDefinition } from '../../src/runtime/manager-context.ts';
import { networkController } from '../../src/controllers/project/network.ts';
import {
  networkContextController,
  networkContextControllerWith,
} from '../../src/controllers/project/networkcontext.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resourceIdOf } from '../../src/runtime/resource-ids.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';
import {
  ALPHA,
  allGone,
  IP_CLAIMS,
  IP_CLASSES,
  IP_POOLS,
  NETWORK_CONTEXTS,
  NETWORKS,
  planeOf,
  quiet,
  reconcileCount,
  runController,
  SUBNETS,
  until,
  US_CENTRAL_1,
  WITHIN,
  writeCondition,
} from '../support/project-fixtures.ts';

const PLANE = planeOf(ALPHA);
const NS = 'default';
const C = 'vpc-us-central-1';
const SUBNET = 'vpc-us-central-1-ipv6';

function condition(object: { status?: { conditions?: Condition[] } } | undefined, type: string) {
  return object?.status?.conditions?.find((c) => c.type === type);
}

describe('networkcontext controller (scenarios.md §4)', () => {
  let s: Scenario | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  const networks = (scenario: Scenario) => scenario.client<Network>(PLANE, NETWORKS);
  const contexts = (scenario: Scenario) => scenario.client<NetworkContext>(PLANE, NETWORK_CONTEXTS);
  const subnets = (scenario: Scenario) => scenario.client<Subnet>(PLANE, SUBNETS);
  const claims = (scenario: Scenario) => scenario.client<IPClaim>(PLANE, IP_CLAIMS);
  const pools = (scenario: Scenario) => scenario.client<IPPool>(PLANE, IP_POOLS);

  /** Scenario 12: `vpc` holds `fd20::/48` under the network controller. */
  async function scenario12(controllers: ControllerDefinition[], clock?: FakeClock): Promise<Network> {
    s = await startScenario({ projects: [ALPHA], controllers: [networkController, ...controllers], clock });
    await networks(s).create({ metadata: { name: 'vpc', namespace: NS }, spec: { ipam: { mode: 'Auto' } } });
    let vpc: Network | undefined;
    await until(
      async () => (vpc = await networks(s!).get('vpc', NS))?.status?.ipam?.ipv6Prefix === 'fd20::/48',
      WITHIN,
      'vpc to hold fd20::/48',
    );
    return vpc!;
  }

  /** A context as the presence controller writes it: controlled by `network`. */
  function createContext(
    scenario: Scenario,
    network: Network,
    location: string,
    ipFamilies: ('IPv4' | 'IPv6')[] = ['IPv6'],
  ): Promise<NetworkContext> {
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
        ipFamilies,
        mtu: 1460,
      },
    });
  }

  /** Waits for context `name` to be Ready with an `IPAMAllocated` of `status` (or none); returns it. */
  async function judged(
    scenario: Scenario,
    name: string,
    allocated: 'True' | 'False' | 'absent',
    timeoutMs = WITHIN,
  ): Promise<NetworkContext> {
    let context: NetworkContext | undefined;
    await until(
      async () => {
        context = await contexts(scenario).get(name, NS);
        const ipam = condition(context, 'IPAMAllocated');
        const ready = condition(context, 'Ready');
        if (allocated === 'absent') return ipam === undefined && ready?.status === 'True';
        return ipam?.status === allocated && ready?.reason !== 'Pending';
      },
      timeoutMs,
      `context ${name} to be judged (IPAMAllocated ${allocated})`,
    );
    return context!;
  }

  /** Scenario 21: `C` holds `fd20::/64` and publishes it. */
  async function scenario21(controllers: ControllerDefinition[] = [networkContextController]) {
    const vpc = await scenario12(controllers);
    await createContext(s!, vpc, US_CENTRAL_1);
    const context = await judged(s!, C, 'True');
    return { vpc, context };
  }

  it('S21 the location /64 is published on a Subnet', async () => {
    const { context } = await scenario21();
    const scenario = s!;
    const subnet = await subnets(scenario).get(SUBNET, NS);
    assert.ok(subnet, 'no Subnet');
    assert.deepEqual(subnet.spec, {
      subnetClass: 'private',
      ipFamily: 'IPv6',
      networkContext: { name: C },
      location: { name: US_CENTRAL_1 },
      startAddress: 'fd20::',
      prefixLength: 64,
    });
    assert.equal(subnet.metadata.labels?.['networking.datumapis.com/network'], 'vpc');
    assert.equal(subnet.metadata.labels?.['networking.datumapis.com/location'], US_CENTRAL_1);
    const controllers = (subnet.metadata.ownerReferences ?? []).filter((ref) => ref.controller === true);
    assert.equal(controllers.length, 1);
    assert.equal(controllers[0].kind, 'NetworkContext');
    assert.equal(controllers[0].name, C);

    assert.deepEqual(context.status?.ipam, {
      ipv6SubnetRef: { name: SUBNET },
      ipv6ClaimRef: {
        project: ALPHA,
        namespace: NS,
        claimName: `networkcontext-${context.metadata.uid}`,
        poolName: 'datum-subnet-v6-vpc-us-central-1',
      },
    });
    assert.equal(condition(context, 'IPAMAllocated')?.message, 'This location is addressed from fd20::/64');
    assert.equal(condition(context, 'Ready')?.status, 'True');
    assert.equal(condition(context, 'Ready')?.reason, 'Ready');
    assert.ok(
      context.metadata.finalizers?.includes('networking.datumapis.com/networkcontext-subnet-release'),
    );
    assert.ok(!JSON.stringify(context.status?.ipam).includes('fd20::'));
  });

  it('S22 the claim holds the /64 inside the /48, across reconciles and a restart', async () => {
    const vpc = await scenario12([]);
    const scenario = s!;
    let controller = await runController(scenario.ctx, networkContextController);
    try {
      const created = await createContext(scenario, vpc, US_CENTRAL_1);
      await judged(scenario, C, 'True');
      const expectClaim = async () => {
        const own = (await claims(scenario).list({ namespace: NS })).items.filter((c) =>
          c.metadata.name!.startsWith('networkcontext-'),
        );
        assert.deepEqual(
          own.map((c) => c.metadata.name),
          [`networkcontext-${created.metadata.uid}`],
        );
        const [claim] = own;
        assert.equal(claim.spec.target, 'ScopeRange');
        assert.equal(claim.spec.className, 'datum-subnet-v6');
        assert.equal(claim.spec.prefixLength, undefined);
        assert.deepEqual(claim.spec.scope, {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
          location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: US_CENTRAL_1 },
        });
        assert.equal(claim.status?.allocatedCIDR, 'fd20::/64');
        assert.equal((await subnets(scenario).get(SUBNET, NS))?.spec.startAddress, 'fd20::');
      };
      await expectClaim();

      let since = await reconcileCount(scenario.ctx, 'networkcontext');
      await contexts(scenario).patchMerge(C, NS, { metadata: { labels: { touched: 'once' } } });
      await quiet(scenario.ctx, 'networkcontext', since);
      await expectClaim();

      await controller.stop();
      since = await reconcileCount(scenario.ctx, 'networkcontext');
      controller = await runController(scenario.ctx, networkContextController);
      await quiet(scenario.ctx, 'networkcontext', since);
      await expectClaim();
    } finally {
      await controller.stop();
    }
  });

  it('S23 the Subnet status follows Programmed', async () => {
    await scenario21();
    const scenario = s!;
    let subnet: Subnet | undefined;
    await until(
      async () =>
        condition((subnet = await subnets(scenario).get(SUBNET, NS)), 'Allocated')?.status === 'True',
      WITHIN,
      'the Subnet to be Allocated',
    );
    assert.equal(subnet?.status?.startAddress, 'fd20::');
    assert.equal(subnet?.status?.prefixLength, 64);
    assert.equal(condition(subnet, 'Allocated')?.reason, 'PrefixAllocated');
    assert.deepEqual(condition(subnet, 'Programmed'), {
      type: 'Programmed',
      status: 'Unknown',
      reason: 'Pending',
      message: 'Waiting for controller',
      lastTransitionTime: '1970-01-01T00:00:00Z',
    });
    assert.equal(condition(subnet, 'Ready')?.status, 'False');
    assert.equal(condition(subnet, 'Ready')?.reason, 'NotProgrammed');
    assert.equal(condition(subnet, 'Ready')?.message, 'Subnet is not yet programmed');

    await writeCondition(subnets(scenario), SUBNET, NS, 'Programmed', 'True', 'Programmed');
    await until(
      async () => {
        const ready = condition(await subnets(scenario).get(SUBNET, NS), 'Ready');
        return ready?.status === 'True' && ready.reason === 'Ready';
      },
      WITHIN,
      'the Subnet to be Ready',
    );
  });

  it('S24 no IPv6, or no subnet class, means no address space', async () => {
    const vpc = await scenario12([networkContextController]);
    let scenario = s!;
    const expectNothingClaimed = async (name: string) => {
      const context = await judged(scenario, name, 'absent');
      assert.equal(condition(context, 'Ready')?.reason, 'Ready');
      assert.equal(
        condition(context, 'Ready')?.message,
        'This location needs no address space of its own, so the network is present in it',
      );
      assert.equal(context.status?.ipam, undefined);
      const contextClaims = (await claims(scenario).list({ namespace: NS })).items.filter((c) =>
        c.metadata.name!.startsWith('networkcontext-'),
      );
      assert.deepEqual(contextClaims, []);
      assert.deepEqual((await subnets(scenario).list({ namespace: NS })).items, []);
    };
    await createContext(scenario, vpc, US_CENTRAL_1, ['IPv4']);
    await expectNothingClaimed(C);
    await scenario.stop();

    s = await startScenario({
      projects: [ALPHA],
      controllers: [networkContextControllerWith({ subnetClass: '' })],
    });
    scenario = s;
    const fresh = await networks(scenario).create({
      metadata: { name: 'vpc', namespace: NS },
      spec: { ipam: { mode: 'Auto' } },
    });
    await createContext(scenario, fresh, 'eu-west-1');
    await expectNothingClaimed('vpc-eu-west-1');
  });

  it('S25 deleting the context releases its /64 and nothing else', async () => {
    const { context } = await scenario21();
    const scenario = s!;
    await contexts(scenario).delete(C, NS);
    await allGone([
      [claims(scenario), `networkcontext-${context.metadata.uid}`, NS],
      [pools(scenario), 'datum-subnet-v6-vpc-us-central-1'],
      [subnets(scenario), SUBNET, NS],
      [contexts(scenario), C, NS],
    ]);
    assert.equal((await networks(scenario).get('vpc', NS))?.status?.ipam?.ipv6Prefix, 'fd20::/48');
    assert.ok(await pools(scenario).get('datum-network-v6-vpc'), 'the /48 went with the /64');
  });

  it('S26 an occupied /64 waits, then goes as soon as the last address does', async () => {
    await scenario21();
    const scenario = s!;
    const probe = await claims(scenario).create({
      metadata: { name: 'probe-f-ipv6', namespace: NS },
      spec: {
        ipFamily: 'IPv6',
        scope: {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
          location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: US_CENTRAL_1 },
        },
      },
    });
    assert.equal(probe.status?.allocatedCIDR, 'fd20::1:0:0/96');
    await contexts(scenario).delete(C, NS);
    const context = await judged(scenario, C, 'False');
    assert.equal(condition(context, 'IPAMAllocated')?.reason, 'RangeOccupied');
    assert.equal(
      condition(context, 'IPAMAllocated')?.message,
      'this location\'s subnet still has addresses allocated inside it: IPPool "datum-subnet-v6-vpc-us-central-1" still has 1 allocation(s) inside it',
    );
    assert.equal(condition(context, 'Ready')?.status, 'False');
    assert.equal(condition(context, 'Ready')?.reason, 'RangeOccupied');
    assert.ok(await contexts(scenario).get(C, NS), 'the context went while its range was occupied');
    await claims(scenario).delete('probe-f-ipv6', NS);
    await allGone([[contexts(scenario), C, NS]]);
  });

  it('S26 a retained address holds the /64 until its IPAllocation goes, whose deletion wakes the release', async () => {
    // A fake clock: the backstop never fires, so only an event can bring the context back.
    const vpc = await scenario12([networkContextController], new FakeClock(Date.now()));
    const scenario = s!;
    await createContext(scenario, vpc, US_CENTRAL_1);
    await judged(scenario, C, 'True');
    const probe = await claims(scenario).create({
      metadata: { name: 'probe-f-ipv6', namespace: NS },
      spec: {
        ipFamily: 'IPv6',
        reclaimPolicy: 'Retain',
        scope: {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
          location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: US_CENTRAL_1 },
        },
      },
    });
    const allocation = probe.status!.boundAllocationRef!.name;
    await contexts(scenario).delete(C, NS);
    await judged(scenario, C, 'False');
    // As a cell releases a retained address: the IPClaim, then its IPAllocation. The claim's
    // deletion wakes the context, whose release is refused while the allocation remains.
    await claims(scenario).delete('probe-f-ipv6', NS);
    await until(
      async () => (await claims(scenario).get('probe-f-ipv6', NS)) === undefined,
      WITHIN,
      'probe gone',
    );
    const allocations = scenario.client<IPAllocation>(PLANE, resourceIdOf(ipAllocationKind));
    assert.equal((await allocations.get(allocation, NS))?.status?.phase, 'Retained');
    assert.ok(await contexts(scenario).get(C, NS), 'the context went while a retained address was inside');
    await allocations.delete(allocation, NS);
    await allGone([[contexts(scenario), C, NS]]);
  });

  it('S27 exhaustion is reported, and the backstop picks up the freed range', async () => {
    const clock = new FakeClock(Date.now());
    const tiny = networkContextControllerWith({ subnetClass: 'tiny-subnet-v6' });
    const vpc = await scenario12([tiny], clock);
    const scenario = s!;
    await scenario.client<IPClass>(PLANE, IP_CLASSES).create({
      metadata: { name: 'tiny-subnet-v6' },
      spec: {
        ipFamily: 'IPv6',
        prefixLength: 49,
        parentClassName: 'datum-network-v6',
        scopeRoles: ['network', 'location'],
      },
    });
    const subnetOf = async (name: string) => (await subnets(scenario).get(`${name}-ipv6`, NS))?.spec;
    await createContext(scenario, vpc, 'l1');
    await judged(scenario, 'vpc-l1', 'True');
    assert.deepEqual(await subnetOf('vpc-l1').then((spec) => [spec?.startAddress, spec?.prefixLength]), [
      'fd20::',
      49,
    ]);
    await createContext(scenario, vpc, 'l2');
    await judged(scenario, 'vpc-l2', 'True');
    assert.deepEqual(await subnetOf('vpc-l2').then((spec) => [spec?.startAddress, spec?.prefixLength]), [
      'fd20:0:0:8000::',
      49,
    ]);

    const since = await reconcileCount(scenario.ctx, 'networkcontext');
    await createContext(scenario, vpc, 'l3');
    const refused = await judged(scenario, 'vpc-l3', 'False');
    await quiet(scenario.ctx, 'networkcontext', since); // what vpc-l3's own writes woke has been judged too
    const message =
      'No address is left for an address of class "tiny-subnet-v6": IPPool "datum-network-v6-vpc" is exhausted';
    assert.equal(condition(refused, 'IPAMAllocated')?.reason, 'AddressPoolExhausted');
    assert.equal(condition(refused, 'IPAMAllocated')?.message, message);
    assert.equal(condition(refused, 'Ready')?.status, 'False');
    assert.equal(condition(refused, 'Ready')?.reason, 'AddressPoolExhausted');
    assert.equal(refused.status?.ipam, undefined);
    assert.equal(await subnets(scenario).get('vpc-l3-ipv6', NS), undefined);

    await contexts(scenario).delete('vpc-l1', NS);
    await allGone([[contexts(scenario), 'vpc-l1', NS]]);
    assert.equal(condition(await contexts(scenario).get('vpc-l3', NS), 'IPAMAllocated')?.status, 'False');
    await clock.advance(60_000);
    const held = await judged(scenario, 'vpc-l3', 'True');
    assert.equal(condition(held, 'Ready')?.status, 'True');
    assert.equal(condition(held, 'IPAMAllocated')?.message, 'This location is addressed from fd20::/49');
  });

  it('S28 dropping IPv6 keeps the held range', async () => {
    const { context } = await scenario21();
    const scenario = s!;
    const subnetBefore = await subnets(scenario).get(SUBNET, NS);
    const claimBefore = await claims(scenario).get(`networkcontext-${context.metadata.uid}`, NS);
    const edited = await contexts(scenario).patchMerge(C, NS, { spec: { ipFamilies: ['IPv4'] } });
    let after: NetworkContext | undefined;
    await until(
      async () =>
        condition((after = await contexts(scenario).get(C, NS)), 'Ready')?.observedGeneration ===
        edited.metadata.generation,
      WITHIN,
      'the edit to be judged',
    );
    assert.deepEqual(condition(after, 'IPAMAllocated'), condition(context, 'IPAMAllocated'));
    assert.equal(condition(after, 'Ready')?.status, 'True');
    assert.deepEqual(after?.status?.ipam, context.status?.ipam);
    assert.equal(
      (await subnets(scenario).get(SUBNET, NS))?.metadata.resourceVersion,
      subnetBefore?.metadata.resourceVersion,
    );
    assert.deepEqual(await claims(scenario).get(`networkcontext-${context.metadata.uid}`, NS), claimBefore);
  });
});
