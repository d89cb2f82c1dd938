/**
 * scenarios.md §2, the location projector (S7–S11): the projector alone against the embedded
 * API server, with fixture F's platform objects and project planes; the platform's writes
 * (Location and ServiceAvailability conditions, Project readiness) are made by the test.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  MANAGED_BY_LABEL,
  type LocationBinding,
} from '../../src/apis/networking/v1alpha/location-binding.ts';
import type { Location } from '../../src/apis/networking/v1alpha/location.ts';
import { serviceAvailabilityName } from '../../src/apis/services/v1alpha1/service-availability.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { locationProjector } from '../../src/fleet/location-projector.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';
import {
  ALPHA,
  createAvailability,
  createLocation,
  addUnreadyProject,
  fixtureTopology,
  LOCATION_BINDINGS,
  LOCATIONS,
  markProjectReady,
  planeOf,
  quiet,
  reconcileCount,
  SERVICE_AVAILABILITIES,
  until,
  US_CENTRAL_1,
  WITHIN,
  writeCondition,
} from '../support/project-fixtures.ts';

const NETWORKING_AT_US_CENTRAL = serviceAvailabilityName('networking.datumapis.com', US_CENTRAL_1);

describe('location projector (scenarios.md §2)', () => {
  let s: Scenario | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  /** Fixture F's platform objects and project-alpha, with the projector running. */
  async function fixtureF(): Promise<Scenario> {
    s = await startScenario({ projects: [ALPHA], controllers: [locationProjector] });
    await createLocation(s);
    await createAvailability(s);
    return s;
  }

  const bindings = (scenario: Scenario, project = ALPHA) =>
    scenario.client<LocationBinding>(planeOf(project), LOCATION_BINDINGS);

  async function bindingAppears(scenario: Scenario, project = ALPHA): Promise<LocationBinding> {
    let found: LocationBinding | undefined;
    await until(
      async () => (found = await bindings(scenario, project).get(US_CENTRAL_1)) !== undefined,
      WITHIN,
      `LocationBinding ${US_CENTRAL_1} in ${project}`,
    );
    return found!;
  }

  async function bindingGoes(scenario: Scenario): Promise<void> {
    await until(
      async () => (await bindings(scenario).get(US_CENTRAL_1)) === undefined,
      WITHIN,
      `LocationBinding ${US_CENTRAL_1} to go`,
    );
  }

  it('S7 all gates open: the binding mirrors the Location and is Available', async () => {
    const scenario = await fixtureF();
    const binding = await bindingAppears(scenario);
    assert.deepEqual(binding.spec, {
      locationRef: { name: US_CENTRAL_1 },
      locationClassName: 'datum-managed',
      displayName: US_CENTRAL_1,
      topology: fixtureTopology(),
    });
    assert.deepEqual(binding.metadata.labels, {
      'networking.datumapis.com/location': US_CENTRAL_1,
      'networking.datumapis.com/class': 'datum-managed',
      'services.miloapis.com/service-name': 'networking.datumapis.com',
      'app.kubernetes.io/managed-by': 'netpresence-location-projector',
    });
    await until(
      async () => {
        const available = (await bindings(scenario).get(US_CENTRAL_1))?.status?.conditions?.find(
          (c) => c.type === 'Available',
        );
        return available?.status === 'True' && available.reason === 'AllGatesOpen';
      },
      WITHIN,
      'Available=True AllGatesOpen',
    );
    const available = (await bindings(scenario).get(US_CENTRAL_1))!.status!.conditions!.find(
      (c) => c.type === 'Available',
    )!;
    assert.equal(
      available.message,
      'Location "us-central-1" is ready and networking.datumapis.com is available there',
    );
  });

  it('S8 gates closing and reopening remove and restore the binding', async () => {
    const scenario = await fixtureF();
    await bindingAppears(scenario);
    const availabilities = scenario.client('platform', SERVICE_AVAILABILITIES);
    const locations = scenario.client<Location>('platform', LOCATIONS);

    await writeCondition(
      availabilities,
      NETWORKING_AT_US_CENTRAL,
      undefined,
      'Available',
      'False',
      'Withdrawn',
    );
    await bindingGoes(scenario);
    await writeCondition(
      availabilities,
      NETWORKING_AT_US_CENTRAL,
      undefined,
      'Available',
      'True',
      'Available',
    );
    await bindingAppears(scenario);

    await writeCondition(locations, US_CENTRAL_1, undefined, 'Ready', 'False', 'Maintenance');
    await bindingGoes(scenario);
    await writeCondition(locations, US_CENTRAL_1, undefined, 'Ready', 'True', 'Ready');
    await bindingAppears(scenario);

    await writeCondition(
      availabilities,
      NETWORKING_AT_US_CENTRAL,
      undefined,
      'Available',
      'False',
      'Withdrawn',
    );
    await bindingGoes(scenario);
    await createAvailability(scenario, US_CENTRAL_1, 'compute.datumapis.com');
    // A later event on the same informer wakes the key once the compute availability is held.
    const since = await reconcileCount(scenario.ctx, 'location-projector');
    await writeCondition(
      availabilities,
      NETWORKING_AT_US_CENTRAL,
      undefined,
      'Available',
      'False',
      'StillWithdrawn',
    );
    await quiet(scenario.ctx, 'location-projector', since);
    assert.equal(
      await bindings(scenario).get(US_CENTRAL_1),
      undefined,
      'compute availability opened the gate',
    );
  });

  it('S9 a project gets its bindings once it is Ready and its plane is engaged', async () => {
    const scenario = await fixtureF();
    await bindingAppears(scenario);
    const since = await reconcileCount(scenario.ctx, 'location-projector');
    const beta = await addUnreadyProject(scenario, 'project-beta');
    const betaBindings = resourceClient<LocationBinding>(beta, LOCATION_BINDINGS);
    await quiet(scenario.ctx, 'location-projector', since);
    assert.deepEqual(
      (await betaBindings.list()).items,
      [],
      'a binding was written for a project that is not Ready',
    );

    await markProjectReady(scenario, 'project-beta');
    await until(
      async () => (await betaBindings.get(US_CENTRAL_1)) !== undefined,
      WITHIN,
      'LocationBinding us-central-1 in project-beta',
    );
  });

  it('S10 hand-made bindings are left alone', async () => {
    const scenario = await fixtureF();
    await bindingAppears(scenario);
    const since = await reconcileCount(scenario.ctx, 'location-projector');
    const handMade = await bindings(scenario).create({
      metadata: { name: 'eu-west-1' },
      spec: { locationRef: { name: 'eu-west-1' }, displayName: 'by hand' },
    });
    await quiet(scenario.ctx, 'location-projector', since);
    const after = await bindings(scenario).get('eu-west-1');
    assert.ok(after, 'the hand-made binding was deleted');
    assert.equal(after.metadata.resourceVersion, handMade.metadata.resourceVersion, 'it was updated');
    assert.equal(after.metadata.labels?.[MANAGED_BY_LABEL], undefined);
  });

  it('S11 the binding topology follows the Location', async () => {
    const scenario = await fixtureF();
    await bindingAppears(scenario);
    await scenario.client<Location>('platform', LOCATIONS).patchMerge(US_CENTRAL_1, undefined, {
      spec: { topology: { 'topology.datum.net/region': 'us-central2' } },
    });
    await until(
      async () =>
        (await bindings(scenario).get(US_CENTRAL_1))?.spec.topology?.['topology.datum.net/region'] ===
        'us-central2',
      WITHIN,
      'the binding topology to carry region us-central2',
    );
  });
});
