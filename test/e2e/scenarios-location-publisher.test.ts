/**
 * Scenarios 52–62 (scenarios.md §7): the location publisher alone against the embedded API
 * server, on fixture F's platform and hub. Scenarios 61 and 62 are *[fleet]* scenarios; without
 * the propagation engine the test writes the claim metadata the engine would, and checks what
 * the publisher guarantees.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import { CLUSTER_LOCATION_LABEL, LOCATION_LABEL, NETWORK_LABEL } from '../../src/apis/common/labels.ts';
import type { Location } from '../../src/apis/networking/v1alpha/location.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import {
  PUBLISHED_BY_LABEL,
  REMOVAL_BLOCKED_ANNOTATION,
  REMOVAL_OVERRIDE_ANNOTATION,
  type ServingLocation,
} from '../../src/apis/networking/v1alpha/serving-location.ts';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  type ClusterPropagationPolicy,
} from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { LOCATION_PUBLISHER } from '../../src/apis/networking/v1alpha/serving-location.ts';
import type { KubeObject } from '../../src/client/types.ts';
import {
  FOREIGN_POLICY_CLAIMS_METRIC,
  locationPublisherController,
  locationPublisherWith,
  REMOVAL_RECHECK_MS,
  DEFAULT_RESYNC_MS,
} from '../../src/controllers/hub/location-publisher.ts';
import { presenceController } from '../../src/controllers/hub/presence.ts';
import { replicatorController } from '../../src/controllers/project/replicator.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import {
  binding,
  C,
  CELL_A,
  CLUSTER_PROPAGATION_POLICIES,
  CLUSTERS,
  createCluster,
  createLocationBinding,
  createNetwork,
  eventsWithReason,
  fixtureHub,
  NETWORK_BINDINGS,
  PROPAGATION_POLICIES,
  SERVING_LOCATIONS,
  VPC,
} from '../support/hub-fixtures.ts';
import {
  ALPHA,
  fixtureTopology,
  LOCATIONS,
  NETWORK_CONTEXTS,
  quiet,
  reconcileCount,
  until,
  US_CENTRAL_1,
  WITHIN,
  writeCondition,
} from '../support/project-fixtures.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';

const PUBLISHER = locationPublisherController.name;
const POLICY = 'location-us-central-1';

async function withPublisher(
  options: { clock?: FakeClock; fixture?: boolean; extra?: (typeof locationPublisherController)[] },
  body: (s: Scenario, H: string) => Promise<void>,
): Promise<void> {
  const s = await startScenario({
    projects: [ALPHA],
    controllers: [locationPublisherWith(), ...(options.extra ?? [])],
    clock: options.clock,
  });
  try {
    const H = options.fixture === false ? '' : await fixtureHub(s);
    await body(s, H);
  } finally {
    await s.stop();
  }
}

const servingLocations = (s: Scenario) => s.client<ServingLocation>('hub', SERVING_LOCATIONS);
const policies = (s: Scenario) => s.client<ClusterPropagationPolicy>('hub', CLUSTER_PROPAGATION_POLICIES);
const locations = (s: Scenario) => s.client<Location>('platform', LOCATIONS);
const clusters = (s: Scenario) => s.client<Cluster>('hub', CLUSTERS);

async function published(
  s: Scenario,
): Promise<{ servingLocation: ServingLocation; policy: ClusterPropagationPolicy }> {
  await until(
    async () =>
      (await servingLocations(s).get(US_CENTRAL_1)) !== undefined &&
      (await policies(s).get(POLICY)) !== undefined,
    WITHIN,
    'the ServingLocation and location-us-central-1',
  );
  return {
    servingLocation: (await servingLocations(s).get(US_CENTRAL_1))!,
    policy: (await policies(s).get(POLICY))!,
  };
}

async function removed(s: Scenario): Promise<void> {
  await until(
    async () =>
      (await servingLocations(s).get(US_CENTRAL_1)) === undefined &&
      (await policies(s).get(POLICY)) === undefined,
    WITHIN,
    'the ServingLocation and location-us-central-1 to be removed',
  );
}

async function blockedAs(s: Scenario, value: string): Promise<void> {
  await until(
    async () =>
      (await servingLocations(s).get(US_CENTRAL_1))?.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION] ===
      value,
    WITHIN,
    `removal-blocked to read ${value}`,
  );
}

/** Nothing is reconciled until `ms` of fake time have passed, then the key is. */
async function assertRequeueAfter(s: Scenario, clock: FakeClock, ms: number): Promise<void> {
  await quiet(s.ctx, PUBLISHER, -1);
  const before = await reconcileCount(s.ctx, PUBLISHER);
  await clock.advance(ms - 1);
  await quiet(s.ctx, PUBLISHER, -1, 1000);
  assert.equal(await reconcileCount(s.ctx, PUBLISHER), before, `nothing is reconciled before ${ms} ms`);
  await clock.advance(1);
  await until(
    async () => (await reconcileCount(s.ctx, PUBLISHER)) > before,
    WITHIN,
    `the requeue after ${ms} ms`,
  );
  await reconnectWatches(clock);
}

/**
 * Fake minutes also pass for the informers: a watch silent for the watchdog's five minutes is
 * ended and resumed after a backoff measured on the same clock. Moving on by a couple of fake
 * seconds lets every such watch resume before the test writes again.
 */
async function reconnectWatches(clock: FakeClock): Promise<void> {
  for (let step = 0; step < 20; step++) await clock.advance(100);
}

async function relabel(s: Scenario, cluster: string, location: string | null): Promise<void> {
  await clusters(s).patchMerge(cluster, undefined, {
    metadata: { labels: { [CLUSTER_LOCATION_LABEL]: location } },
  });
}

/**
 * A second published Location. The prune gate refuses to remove anything while the platform's
 * Location list is empty (scenario 60), so the removal scenarios keep another Location in it.
 */
async function anotherLocation(s: Scenario): Promise<void> {
  await locations(s).create({
    metadata: { name: 'eu-west-1' },
    spec: {
      locationClassName: 'datum-managed',
      topology: { 'topology.datum.net/city-code': 'AMS' },
      provider: {},
    },
  });
}

const fakeClock = () => new FakeClock(Date.parse('2030-01-01T00:00:00Z'));

describe('location publisher', () => {
  it('S52 a Location is published as a ServingLocation and its propagation policy', () =>
    withPublisher({}, async (s) => {
      const { servingLocation, policy } = await published(s);
      const location = (await locations(s).get(US_CENTRAL_1))!;
      assert.equal(servingLocation.metadata.labels?.[PUBLISHED_BY_LABEL], LOCATION_PUBLISHER);
      assert.deepEqual(servingLocation.spec.topology, location.spec.topology);
      assert.equal(servingLocation.spec.source?.generation, location.metadata.generation);
      assert.ok(servingLocation.spec.source?.publishedAt, 'publishedAt is set');
      assert.equal(policy.metadata.labels?.[PUBLISHED_BY_LABEL], LOCATION_PUBLISHER);
      assert.equal(policy.spec.conflictResolution, 'Overwrite');
      assert.deepEqual(policy.spec.resourceSelectors, [
        { apiVersion: 'networking.datumapis.com/v1alpha', kind: 'ServingLocation', name: US_CENTRAL_1 },
        {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'NetworkContext',
          labelSelector: { matchLabels: { [LOCATION_LABEL]: US_CENTRAL_1 } },
        },
        {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'Subnet',
          labelSelector: { matchLabels: { [LOCATION_LABEL]: US_CENTRAL_1 } },
        },
      ]);
      assert.deepEqual(policy.spec.placement, {
        clusterAffinity: { labelSelector: { matchLabels: { [CLUSTER_LOCATION_LABEL]: US_CENTRAL_1 } } },
      });
    }));

  it('S53 not-Ready locations are published', () =>
    withPublisher({ fixture: false }, async (s) => {
      await locations(s).create({
        metadata: { name: US_CENTRAL_1 },
        spec: { locationClassName: 'datum-managed', topology: fixtureTopology(), provider: {} },
      });
      await writeCondition(locations(s), US_CENTRAL_1, undefined, 'Ready', 'False', 'NotReady');
      const first = await published(s);
      await writeCondition(locations(s), US_CENTRAL_1, undefined, 'Ready', 'True', 'Ready');
      await writeCondition(locations(s), US_CENTRAL_1, undefined, 'Ready', 'False', 'NotReady');
      const since = await reconcileCount(s.ctx, PUBLISHER);
      await quiet(s.ctx, PUBLISHER, since - 1);
      const kept = await published(s);
      assert.equal(
        kept.servingLocation.metadata.uid,
        first.servingLocation.metadata.uid,
        'the ServingLocation is kept',
      );
      assert.equal(kept.policy.metadata.uid, first.policy.metadata.uid, 'the policy is kept');
    }));

  it('S54 a location without a city code gets a MissingCityCode warning and is not published', async () => {
    const clock = fakeClock();
    await withPublisher({ clock, fixture: false }, async (s) => {
      await locations(s).create({
        metadata: { name: 'nowhere' },
        spec: {
          locationClassName: 'datum-managed',
          topology: { 'topology.datum.net/region': 'nowhere1' },
          provider: {},
        },
      });
      let events: Awaited<ReturnType<typeof eventsWithReason>> = [];
      await until(
        async () => (events = await eventsWithReason(s, 'platform', 'MissingCityCode')).length > 0,
        WITHIN,
        'a MissingCityCode event',
      );
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'Warning');
      assert.equal(events[0].action, 'PublishLocation');
      assert.equal(events[0].regarding?.name, 'nowhere');
      assert.equal(
        events[0].note,
        'Location "nowhere" carries no topology.datum.net/city-code, so it cannot be published',
      );
      await clock.advance(20_000);
      await quiet(s.ctx, PUBLISHER, -1);
      assert.equal(await servingLocations(s).get('nowhere'), undefined, 'no ServingLocation');
      assert.equal(await policies(s).get('location-nowhere'), undefined, 'no policy');
    });
  });

  it('S55 stable resync, real edits', async () => {
    const clock = fakeClock();
    await withPublisher({ clock }, async (s) => {
      const { servingLocation } = await published(s);
      await assertRequeueAfter(s, clock, DEFAULT_RESYNC_MS);
      await quiet(s.ctx, PUBLISHER, -1);
      const resynced = (await servingLocations(s).get(US_CENTRAL_1))!;
      assert.equal(resynced.metadata.resourceVersion, servingLocation.metadata.resourceVersion);
      assert.equal(resynced.spec.source?.publishedAt, servingLocation.spec.source?.publishedAt);

      await locations(s).patchMerge(US_CENTRAL_1, undefined, {
        spec: { topology: { 'topology.datum.net/region': 'us-central2' } },
      });
      const location = (await locations(s).get(US_CENTRAL_1))!;
      await until(
        async () =>
          (await servingLocations(s).get(US_CENTRAL_1))?.spec.topology['topology.datum.net/region'] ===
          'us-central2',
        WITHIN,
        'the ServingLocation to carry the new region',
      );
      const edited = (await servingLocations(s).get(US_CENTRAL_1))!;
      assert.equal(edited.spec.source?.generation, location.metadata.generation);
      assert.ok(
        Date.parse(edited.spec.source!.publishedAt!) > Date.parse(servingLocation.spec.source!.publishedAt!),
        'a later publishedAt',
      );
    });
  });

  it('S56 foreign objects are not touched', () =>
    withPublisher({ fixture: false }, async (s) => {
      const foreign = await servingLocations(s).create({
        metadata: { name: US_CENTRAL_1 },
        spec: { topology: { 'topology.datum.net/city-code': 'XXX' } },
      });
      await fixtureHub(s);
      let events: Awaited<ReturnType<typeof eventsWithReason>> = [];
      await until(
        async () => (events = await eventsWithReason(s, 'platform', 'UnlabelledHubObject')).length > 0,
        WITHIN,
        'an UnlabelledHubObject event',
      );
      assert.equal(events[0].type, 'Warning');
      assert.equal(
        events[0].note,
        'ServingLocation "us-central-1" on the hub carries no networking.datumapis.com/published-by label and is not owned by this publisher',
      );
      assert.equal(
        (await servingLocations(s).get(US_CENTRAL_1))!.metadata.resourceVersion,
        foreign.metadata.resourceVersion,
      );

      const since = await reconcileCount(s.ctx, PUBLISHER);
      await locations(s).delete(US_CENTRAL_1);
      await quiet(s.ctx, PUBLISHER, since);
      assert.equal(
        (await servingLocations(s).get(US_CENTRAL_1))?.metadata.resourceVersion,
        foreign.metadata.resourceVersion,
      );
    }));

  it('S57 a deleted Location no cell serves has its ServingLocation and policy removed', () =>
    withPublisher({}, async (s) => {
      await anotherLocation(s);
      await published(s);
      await relabel(s, CELL_A, 'eu-west-1');
      await locations(s).delete(US_CENTRAL_1);
      await removed(s);
    }));

  it('S58 a deleted Location a Ready cell still serves keeps its ServingLocation, annotated why', async () => {
    const clock = fakeClock();
    await withPublisher({ clock }, async (s) => {
      await createCluster(s, 'cell-z', {}, false);
      await anotherLocation(s);
      await published(s);
      await locations(s).delete(US_CENTRAL_1);
      await blockedAs(s, 'ClustersStillServing: clusters still labelled for this location: cell-a');
      await assertRequeueAfter(s, clock, REMOVAL_RECHECK_MS);
      assert.ok(await servingLocations(s).get(US_CENTRAL_1), 'the ServingLocation stays');

      await relabel(s, CELL_A, null);
      await blockedAs(
        s,
        'FleetNotFullyLabelled: no cluster claims this location, but 1 Ready cluster(s) carry no location label at all: cell-a',
      );
      await relabel(s, CELL_A, 'eu-west-1');
      await removed(s);
    });
  });

  it('S59 override removes a held location', () =>
    withPublisher({}, async (s) => {
      await anotherLocation(s);
      await published(s);
      await locations(s).delete(US_CENTRAL_1);
      await blockedAs(s, 'ClustersStillServing: clusters still labelled for this location: cell-a');
      await servingLocations(s).patchMerge(US_CENTRAL_1, undefined, {
        metadata: { annotations: { [REMOVAL_OVERRIDE_ANNOTATION]: 'true' } },
      });
      await removed(s);
    }));

  it('S59 a recreated location is republished', () =>
    withPublisher({}, async (s) => {
      await anotherLocation(s);
      await published(s);
      await locations(s).delete(US_CENTRAL_1);
      await blockedAs(s, 'ClustersStillServing: clusters still labelled for this location: cell-a');
      await locations(s).create({
        metadata: { name: US_CENTRAL_1 },
        spec: { locationClassName: 'datum-managed', topology: fixtureTopology(), provider: {} },
      });
      await until(
        async () => {
          const servingLocation = await servingLocations(s).get(US_CENTRAL_1);
          return (
            servingLocation !== undefined &&
            servingLocation.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION] === undefined
          );
        },
        WITHIN,
        'the ServingLocation to be republished without removal-blocked',
      );
    }));

  it('S60 no prune on an empty source', async () => {
    const clock = fakeClock();
    await withPublisher({ clock }, async (s) => {
      const before = await published(s);
      await relabel(s, CELL_A, 'eu-west-1');
      await locations(s).delete(US_CENTRAL_1);
      await assertRequeueAfter(s, clock, REMOVAL_RECHECK_MS);
      const after = await published(s);
      assert.equal(after.servingLocation.metadata.uid, before.servingLocation.metadata.uid);
      assert.equal(after.servingLocation.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION], undefined);
      assert.equal(after.policy.metadata.uid, before.policy.metadata.uid);
    });
  });

  it('S61 a foreign fleet-wide claim is reported, not rewritten (claim metadata written as the engine would)', () =>
    withPublisher({ fixture: false }, async (s) => {
      await locations(s).create({
        metadata: { name: US_CENTRAL_1 },
        spec: {
          locationClassName: 'datum-managed',
          topology: { 'topology.datum.net/region': 'us-central1' },
          provider: {},
        },
      });
      const H = await s.hubNamespace(ALPHA);
      await createCluster(s, CELL_A, { [CLUSTER_LOCATION_LABEL]: US_CENTRAL_1 });
      await createCluster(s, 'cell-b', { [CLUSTER_LOCATION_LABEL]: 'eu-west-1' });
      await policies(s).create({
        metadata: { name: 'all-contexts' },
        spec: {
          priority: 10,
          resourceSelectors: [{ apiVersion: 'networking.datumapis.com/v1alpha', kind: 'NetworkContext' }],
        },
      });
      const claimed = await s.client<NetworkContext>('hub', NETWORK_CONTEXTS).create({
        metadata: {
          name: C,
          namespace: H,
          labels: {
            [NETWORK_LABEL]: VPC,
            [LOCATION_LABEL]: US_CENTRAL_1,
            [CPP_PERMANENT_ID_LABEL]: 'all-contexts-id',
          },
          annotations: { [CPP_NAME_ANNOTATION]: 'all-contexts' },
        },
        spec: { network: { name: VPC }, location: { name: US_CENTRAL_1 } },
      });

      await locations(s).patchMerge(US_CENTRAL_1, undefined, {
        spec: { topology: { 'topology.datum.net/city-code': 'DFW' } },
      });
      let events: Awaited<ReturnType<typeof eventsWithReason>> = [];
      await until(
        async () => (events = await eventsWithReason(s, 'hub', 'ForeignPolicyClaim')).length > 0,
        WITHIN,
        'a ForeignPolicyClaim event',
      );
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'Warning');
      assert.equal(events[0].action, 'CheckPropagation');
      assert.equal(events[0].regarding?.name, C);
      assert.equal(events[0].regarding?.namespace, H);
      assert.match(events[0].note!, /"all-contexts"/);
      assert.match(events[0].note!, /"location-us-central-1"/);
      const gauge = (await s.ctx.metrics.registry.getSingleMetric(FOREIGN_POLICY_CLAIMS_METRIC)!.get())
        .values;
      assert.ok(
        gauge.some((value) => value.value >= 1),
        'netpresence_foreign_policy_claims is at least 1',
      );
      const after = (await s.client<NetworkContext>('hub', NETWORK_CONTEXTS).get(C, H))!;
      assert.equal(after.metadata.annotations?.[CPP_NAME_ANNOTATION], 'all-contexts');
      assert.equal(after.metadata.labels?.[CPP_PERMANENT_ID_LABEL], 'all-contexts-id');
      assert.equal(
        after.metadata.resourceVersion,
        claimed.metadata.resourceVersion,
        'the claim metadata is never rewritten',
      );
    }));

  it('S62 netpresence creates no overlapping policy (policies written by netpresence)', () =>
    withPublisher({ extra: [presenceController, replicatorController] }, async (s, H) => {
      for (const location of ['eu-west-1', 'ap-south-1']) {
        await locations(s).create({
          metadata: { name: location },
          spec: {
            locationClassName: 'datum-managed',
            topology: { 'topology.datum.net/city-code': location.toUpperCase() },
            provider: {},
          },
        });
      }
      await createLocationBinding(s, ALPHA, US_CENTRAL_1);
      await createNetwork(s, ALPHA, VPC);
      await s.client('hub', NETWORK_BINDINGS).create(binding('web', H, VPC));
      await until(
        async () => (await s.client('hub', NETWORK_CONTEXTS).get(C, H)) !== undefined,
        WITHIN,
        'the hub copy of C',
      );
      await until(
        async () => (await policies(s).list()).items.length === 3,
        WITHIN,
        'one policy per location',
      );
      const selectsPresence = (policy: KubeObject & { spec: ClusterPropagationPolicy['spec'] }) =>
        policy.spec.resourceSelectors.some((selector) =>
          ['NetworkContext', 'Subnet'].includes(selector.kind),
        );
      const clusterPolicies = (await policies(s).list()).items.filter(selectsPresence);
      const namespacedPolicies = (
        await s
          .client<KubeObject & { spec: ClusterPropagationPolicy['spec'] }>('hub', PROPAGATION_POLICIES)
          .list()
      ).items.filter(selectsPresence);
      assert.deepEqual(clusterPolicies.map((policy) => policy.metadata.name).sort(), [
        'location-ap-south-1',
        'location-eu-west-1',
        'location-us-central-1',
      ]);
      assert.equal(namespacedPolicies.length, 0);
      for (const policy of clusterPolicies) {
        const location = policy.metadata.name!.slice('location-'.length);
        for (const selector of policy.spec.resourceSelectors.filter(
          (entry) => entry.kind !== 'ServingLocation',
        ))
          assert.deepEqual(selector.labelSelector, { matchLabels: { [LOCATION_LABEL]: location } });
      }
    }));
});
