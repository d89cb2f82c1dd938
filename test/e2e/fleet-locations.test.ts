/**
 * End to end through `netpresence up` (scenarios.md §13, S111–S113): a location whose serving
 * cell changes, a location policy published after contexts exist, and a transient NotReady that
 * tears nothing down. Fixture F, real-time bounds of 2 seconds.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { networkBindingMessages } from '../../src/apis/networking/v1alpha/network-binding.ts';
import {
  ALPHA,
  allWithin,
  C,
  conditionOf,
  FIXTURE_TOPOLOGY,
  get,
  GIVEN_WITHIN,
  isTrue,
  KINDS,
  POLICY,
  present,
  s104Outcome,
  scenario104,
  scenario111,
  startFixtureF,
  SUBNET,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';

const LOCATION = 'us-central-1';
const AVAILABILITY = 'networking.datumapis.com--us-central-1';

/** Sets condition `type` on a platform object as the platform would. */
async function setPlatformCondition(
  f: FleetFixture,
  kind: 'locations' | 'serviceAvailabilities',
  name: string,
  type: string,
  status: 'True' | 'False',
): Promise<void> {
  const client = f.client<Any>('platform', KINDS[kind]);
  const object = await client.get(name);
  const conditions = (object.status?.conditions ?? []).filter((c: Any) => c.type !== type);
  conditions.push({
    type,
    status,
    reason: status === 'True' ? type : `Not${type}`,
    message: `${type} is ${status}`,
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    observedGeneration: object.metadata.generation,
  });
  await client.patchMerge(name, undefined, { status: { conditions } }, { subresource: 'status' });
}

/** uid and resourceVersion of each object S113 says stays unchanged. */
async function untouched(f: FleetFixture): Promise<string[]> {
  const objects = [
    await get(f, 'hub', 'servingLocations', LOCATION),
    await get(f, 'hub', 'clusterPropagationPolicies', POLICY),
    await get(f, ALPHA, 'networkContexts', C, 'default'),
    await get(f, 'hub', 'networkContexts', C, f.H),
    await get(f, 'cell-a', 'networkContexts', C, f.H),
    await get(f, 'cell-a', 'subnets', SUBNET, f.H),
    await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H),
  ];
  return objects.map((o: Any) => `${o?.kind}/${o?.metadata.uid}/${o?.metadata.resourceVersion}`);
}

describe('end to end on the embedded fleet: locations', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('S111 a location whose cells change', async () => {
    const fx = (f = await startFixtureF({ cells: [{ name: 'cell-b' }] }));
    await scenario104(fx);
    await scenario111(fx, WITHIN);
  });

  it('S112 policy created after contexts exist', async () => {
    const fx = (f = await startFixtureF({ withoutCityCode: true }));
    await fx.createBinding('web');
    await fx.createClaim('cell-a', 'web-0-eth0');
    await allWithin(GIVEN_WITHIN, {
      'web is Ready': async () => isTrue(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready'),
      'web-0-eth0 is refused NoLocationIdentity': async () =>
        conditionOf(await get(fx, 'cell-a', 'claims', 'web-0-eth0', fx.H), 'Ready')?.reason ===
        'NoLocationIdentity',
      'the hub holds copies of C and the Subnet': async () =>
        (await present(fx, 'hub', 'networkContexts', C, fx.H)) &&
        (await present(fx, 'hub', 'subnets', SUBNET, fx.H)),
    });
    assert.equal(await present(fx, 'cell-a', 'networkContexts', C, fx.H), false, 'no cell holds C');
    assert.equal(await present(fx, 'cell-a', 'subnets', SUBNET, fx.H), false, 'no cell holds the Subnet');

    await fx.client('platform', KINDS.locations).patchMerge(LOCATION, undefined, {
      spec: { topology: FIXTURE_TOPOLOGY },
    });
    const claimed = (copy: Any) =>
      copy?.metadata.annotations?.['clusterpropagationpolicy.karmada.io/name'] === POLICY;
    await allWithin(WITHIN, {
      'the ServingLocation and location-us-central-1 exist': async () =>
        (await present(fx, 'hub', 'servingLocations', LOCATION)) &&
        (await present(fx, 'hub', 'clusterPropagationPolicies', POLICY)),
      'the hub copies carry its claim metadata': async () =>
        claimed(await get(fx, 'hub', 'networkContexts', C, fx.H)) &&
        claimed(await get(fx, 'hub', 'subnets', SUBNET, fx.H)),
      'cell-a holds the ServingLocation and both copies': async () =>
        (await present(fx, 'cell-a', 'servingLocations', LOCATION)) &&
        (await present(fx, 'cell-a', 'networkContexts', C, fx.H)) &&
        (await present(fx, 'cell-a', 'subnets', SUBNET, fx.H)),
      'web-0-eth0 is bound with gateway fd20::1': async () => {
        const claim = await get(fx, 'cell-a', 'claims', 'web-0-eth0', fx.H);
        return isTrue(claim, 'Bound') && claim.status?.addresses?.[0]?.gateway === 'fd20::1';
      },
    });
  });

  it('S113 a transient NotReady tears nothing down', async () => {
    const fx = (f = await startFixtureF());
    await scenario104(fx);
    // S104 ends at the claim's Bound; the data plane's reports on the interface follow it, and
    // "unchanged" is measured from the interface they leave.
    await allWithin(GIVEN_WITHIN, {
      'web-0-eth0 is Prepared and Programmed': async () => {
        const iface = await get(fx, 'cell-a', 'interfaces', 'web-0-eth0', fx.H);
        return isTrue(iface, 'Prepared') && isTrue(iface, 'Programmed');
      },
    });
    const held = await untouched(fx);
    const gates: ['locations' | 'serviceAvailabilities', string, string][] = [
      ['locations', LOCATION, 'Ready'],
      ['serviceAvailabilities', AVAILABILITY, 'Available'],
    ];
    for (const [kind, name, type] of gates) {
      await setPlatformCondition(fx, kind, name, type, 'False');
      await allWithin(WITHIN, {
        [`with ${type}=False the LocationBinding is gone`]: async () =>
          !(await present(fx, ALPHA, 'locationBindings', LOCATION)),
        'web is LocationNotAvailable': async () => {
          const ready = conditionOf(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready');
          return (
            ready?.reason === 'LocationNotAvailable' &&
            ready.message === networkBindingMessages.locationNotAvailable('project-alpha', LOCATION)
          );
        },
      });
      assert.deepEqual(
        await untouched(fx),
        held,
        'ServingLocation, policy, contexts, copies and interface unchanged',
      );
      await setPlatformCondition(fx, kind, name, type, 'True');
      await allWithin(WITHIN, {
        [`with ${type}=True again web is Ready`]: async () =>
          isTrue(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready'),
      });
      await allWithin(WITHIN, s104Outcome(fx));
    }
  });
});
