/**
 * Location publisher (controllers.md §7): publishes every platform Location that has a city code
 * to the hub as a ServingLocation and a ClusterPropagationPolicy `location-<loc>` that carries
 * it, and the location's contexts and subnets, to exactly the clusters labelled for it.
 *
 * Guarantees: a Location is published whether or not it is Ready, so a transient NotReady tears
 * nothing down. Hub objects without the published-by label are never written or removed (a
 * Warning `UnlabelledHubObject` says so). A published location is removed only once its
 * Location is gone, the stores are synced and the platform list is not suspiciously empty, and
 * the removal guard (no Ready cluster still labelled for it, and none unlabelled) allows it or
 * the ServingLocation carries `removal-override: "true"`; while held, the ServingLocation says
 * why in `removal-blocked`, and a Cluster change re-judges at once. Foreign policy claims on
 * the location's hub objects are reported (one Warning per object and policy, and the gauge
 * `netpresence_foreign_policy_claims{location}`), never rewritten. An unchanged location
 * writes nothing on resync.
 * Caveat: warnings about a location are remembered in memory, so a restarted publisher
 * reports a standing problem once more.
 */
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { clusterKind, type Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { LOCATION_LABEL } from '../../apis/common/labels.ts';
import { locationKind, type Location } from '../../apis/networking/v1alpha/location.ts';
import { networkContextKind } from '../../apis/networking/v1alpha/network-context.ts';
import {
  locationPolicyName,
  PublisherEventAction,
  publisherEventMessages,
  PublisherEventReason,
  REMOVAL_BLOCKED_ANNOTATION,
  REMOVAL_OVERRIDE_ANNOTATION,
  removalBlockedValue,
  servingLocationKind,
  servingLocationName,
  type ServingLocation,
} from '../../apis/networking/v1alpha/serving-location.ts';
import { subnetKind } from '../../apis/networking/v1alpha/subnet.ts';
import {
  clusterPropagationPolicyKind,
  type ClusterPropagationPolicy,
} from '../../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import { after, Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { Informer, InformerEvent } from '../../runtime/informer-contract.ts';
import { forObject, watches, type Trigger } from '../../runtime/triggers.ts';
import type { ControllerDefinition, ManagerContext } from '../../runtime/manager-context.ts';
import { EVENTS, resourceIdOf } from '../../runtime/resource-ids.ts';
import { eventRecorder, type EventRecorder } from '../../runtime/event-recorder.ts';
import {
  BY_LOCATION_LABEL,
  findingKey,
  foreignClaim,
  foreignClaimChanged,
  locationLabelIndexes,
} from './foreign-claims.ts';
import {
  cityCode,
  isPublished,
  newPolicy,
  newServingLocation,
  policyPatch,
  removalGuard,
  servingLocationPatch,
  servingLocationSpec,
} from './location-publication.ts';

export const name = 'location-publisher';

export const DEFAULT_RESYNC_MS = 30 * 60_000;
/** The longest a held or gated removal waits before it is judged again. */
export const REMOVAL_RECHECK_MS = 5 * 60_000;
/** How long the prune gate waits for the stores to sync. */
export const PRUNE_SYNC_WAIT_MS = 30_000;
export const FOREIGN_POLICY_CLAIMS_METRIC = 'netpresence_foreign_policy_claims';

export interface PublisherOptions {
  /** Safety resync of a published location; default 30 min. */
  resyncMs?: number;
}

export interface PublisherDeps {
  locations: Informer<Location>; // platform
  servingLocations: Informer<ServingLocation>; // hub
  policies: Informer<ClusterPropagationPolicy>; // hub
  clusters: Informer<Cluster>; // hub
  located: Informer<KubeObject>[]; // hub NetworkContexts and Subnets, with locationLabelIndexes
  servingLocationsClient: ResourceClient<ServingLocation>;
  policiesClient: ResourceClient<ClusterPropagationPolicy>;
  platformEvents: EventRecorder;
  hubEvents: EventRecorder;
  foreignClaims: Gauge<'location'>;
  clock: Clock;
  resyncMs: number;
  /** The last warning recorded per location, so a standing problem is reported once. */
  warned: Map<string, string>;
  /** Foreign claims already reported (findingKey). */
  reportedClaims: Set<string>;
}

export async function reconcile(location: string, deps: PublisherDeps): Promise<Outcome> {
  const source = deps.locations.store.get(undefined, location);
  return source ? publish(source, deps) : remove(location, deps);
}

async function publish(location: Location, deps: PublisherDeps): Promise<Outcome> {
  const locationName = location.metadata.name!;
  if (cityCode(location.spec.topology) === '') {
    await warnOnce(
      location,
      PublisherEventReason.MissingCityCode,
      publisherEventMessages.missingCityCode(locationName),
      deps,
    );
    return done();
  }
  const held = deps.servingLocations.store.get(undefined, servingLocationName(locationName));
  if (held && !isPublished(held)) {
    const note = publisherEventMessages.unlabelledHubObject(
      servingLocationKind.kind as 'ServingLocation',
      held.metadata.name!,
    );
    await warnOnce(location, PublisherEventReason.UnlabelledHubObject, note, deps);
    return done();
  }
  const servingLocation = await publishServingLocation(location, held, deps);
  const policy = deps.policies.store.get(undefined, locationPolicyName(locationName));
  if (policy && !isPublished(policy)) {
    const note = publisherEventMessages.unlabelledHubObject(
      clusterPropagationPolicyKind.kind as 'ClusterPropagationPolicy',
      policy.metadata.name!,
    );
    await warnOnce(location, PublisherEventReason.UnlabelledHubObject, note, deps);
    return done();
  }
  await publishPolicy(locationName, policy, deps);
  await reportForeignClaims(locationName, deps);
  if (servingLocation.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION] !== undefined)
    await deps.servingLocationsClient.patchMerge(servingLocation.metadata.name!, undefined, {
      metadata: { annotations: { [REMOVAL_BLOCKED_ANNOTATION]: null } },
    });
  deps.warned.delete(locationName);
  return after(deps.resyncMs);
}

async function publishServingLocation(
  location: Location,
  held: ServingLocation | undefined,
  deps: PublisherDeps,
): Promise<ServingLocation> {
  const spec = servingLocationSpec(location, held, new Date(deps.clock.now()).toISOString());
  if (!held) return deps.servingLocationsClient.create(newServingLocation(location.metadata.name!, spec));
  const patch = servingLocationPatch(held, spec);
  return patch ? deps.servingLocationsClient.patchMerge(held.metadata.name!, undefined, patch) : held;
}

async function publishPolicy(
  location: string,
  held: ClusterPropagationPolicy | undefined,
  deps: PublisherDeps,
): Promise<void> {
  if (!held) {
    await deps.policiesClient.create(newPolicy(location));
    return;
  }
  const patch = policyPatch(held, location);
  if (patch) await deps.policiesClient.patchMerge(held.metadata.name!, undefined, patch);
}

async function reportForeignClaims(location: string, deps: PublisherDeps): Promise<void> {
  let count = 0;
  for (const object of deps.located.flatMap((informer) =>
    informer.store.byIndex(BY_LOCATION_LABEL, location),
  )) {
    const policy = foreignClaim(object, location);
    if (!policy) continue;
    count++;
    const finding = findingKey(object, policy);
    if (deps.reportedClaims.has(finding)) continue;
    deps.reportedClaims.add(finding);
    await deps.hubEvents.record(object, {
      type: 'Warning',
      reason: PublisherEventReason.ForeignPolicyClaim,
      action: PublisherEventAction.CheckPropagation,
      note: publisherEventMessages.foreignPolicyClaim(
        object.kind ?? '',
        object.metadata.name!,
        policy,
        location,
      ),
    });
  }
  deps.foreignClaims.set({ location }, count);
}

/** Location absent: remove its published objects once the prune gate and the guard allow it. */
async function remove(location: string, deps: PublisherDeps): Promise<Outcome> {
  deps.warned.delete(location);
  const held = deps.servingLocations.store.get(undefined, servingLocationName(location));
  if (!held || !isPublished(held)) return done();
  const recheck = after(deps.resyncMs > 0 ? Math.min(deps.resyncMs, REMOVAL_RECHECK_MS) : REMOVAL_RECHECK_MS);
  if (!(await pruneAllowed(deps))) return recheck;
  if (held.metadata.annotations?.[REMOVAL_OVERRIDE_ANNOTATION] !== 'true') {
    const block = removalGuard(location, deps.clusters.store.list());
    if (block) {
      const value = removalBlockedValue(block.reason, block.message);
      if (held.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION] !== value)
        await deps.servingLocationsClient.patchMerge(held.metadata.name!, undefined, {
          metadata: { annotations: { [REMOVAL_BLOCKED_ANNOTATION]: value } },
        });
      return recheck;
    }
  }
  await deps.servingLocationsClient.delete(held.metadata.name!);
  const policy = deps.policies.store.get(undefined, locationPolicyName(location));
  if (policy && isPublished(policy)) await deps.policiesClient.delete(policy.metadata.name!);
  deps.foreignClaims.remove({ location });
  return done();
}

/** The stores are synced (waiting up to 30 s), and the platform list is not empty while published objects exist. */
async function pruneAllowed(deps: PublisherDeps): Promise<boolean> {
  const stores = [deps.locations, deps.servingLocations, deps.policies, deps.clusters, ...deps.located];
  const timeout = new AbortController();
  const synced = await Promise.race([
    Promise.all(stores.map((informer) => informer.synced())).then(() => true),
    deps.clock.sleep(PRUNE_SYNC_WAIT_MS, timeout.signal).then(
      () => false,
      () => false,
    ),
  ]).finally(() => timeout.abort());
  if (!synced) return false;
  const published = deps.servingLocations.store.list().some(isPublished);
  return !(published && deps.locations.store.list().length === 0);
}

async function warnOnce(
  location: Location,
  reason: string,
  note: string,
  deps: PublisherDeps,
): Promise<void> {
  const finding = `${reason}: ${note}`;
  if (deps.warned.get(location.metadata.name!) === finding) return;
  deps.warned.set(location.metadata.name!, finding);
  await deps.platformEvents.record(location, {
    type: 'Warning',
    reason,
    action: PublisherEventAction.PublishLocation,
    note,
  });
}

export function triggers(deps: PublisherDeps): Trigger<string>[] {
  const policyPrefix = locationPolicyName('');
  const locationsOf = (event: InformerEvent<KubeObject>): string[] =>
    [event.object, event.previous]
      .map((object) => object?.metadata.labels?.[LOCATION_LABEL])
      .filter((location): location is string => !!location);
  return [
    forObject(deps.locations, (location) => location.metadata.name!),
    forObject(deps.servingLocations, (servingLocation) => servingLocation.metadata.name!),
    watches(deps.policies, (event) => {
      const policy = event.object.metadata.name!;
      return policy.startsWith(policyPrefix) ? [policy.slice(policyPrefix.length)] : [];
    }),
    // Each wake scans the location's objects: only a change of claim is worth one.
    ...deps.located.map((informer) => watches(informer, locationsOf, foreignClaimChanged)),
    watches(deps.clusters, () =>
      deps.servingLocations.store
        .list()
        .filter(
          (servingLocation) =>
            servingLocation.metadata.annotations?.[REMOVAL_BLOCKED_ANNOTATION] !== undefined,
        )
        .map((servingLocation) => servingLocation.metadata.name!),
    ),
  ];
}

function foreignClaimsGauge(registry: Registry): Gauge<'location'> {
  const existing = registry.getSingleMetric(FOREIGN_POLICY_CLAIMS_METRIC);
  if (existing) return existing as Gauge<'location'>;
  return new Gauge({
    name: FOREIGN_POLICY_CLAIMS_METRIC,
    help: 'Hub NetworkContexts and Subnets of a location claimed by a policy other than location-<loc>',
    labelNames: ['location'],
    registers: [registry],
  });
}

export function locationPublisherWith(options: PublisherOptions = {}): ControllerDefinition {
  return {
    name,
    build(ctx: ManagerContext): Controller<string> {
      const instance = hostname();
      const deps: PublisherDeps = {
        locations: ctx.platform.informer<Location>(resourceIdOf(locationKind)),
        servingLocations: ctx.hub.informer<ServingLocation>(resourceIdOf(servingLocationKind)),
        policies: ctx.hub.informer<ClusterPropagationPolicy>(resourceIdOf(clusterPropagationPolicyKind)),
        clusters: ctx.hub.informer<Cluster>(resourceIdOf(clusterKind)),
        located: [networkContextKind, subnetKind].map((kind) =>
          ctx.hub.informer<KubeObject>(resourceIdOf(kind), { indexes: locationLabelIndexes }),
        ),
        servingLocationsClient: ctx.hub.client<ServingLocation>(resourceIdOf(servingLocationKind)),
        policiesClient: ctx.hub.client<ClusterPropagationPolicy>(resourceIdOf(clusterPropagationPolicyKind)),
        platformEvents: eventRecorder({
          client: ctx.platform.client(EVENTS),
          controller: name,
          instance,
          clock: ctx.clock,
          log: ctx.log,
        }),
        hubEvents: eventRecorder({
          client: ctx.hub.client(EVENTS),
          controller: name,
          instance,
          clock: ctx.clock,
          log: ctx.log,
        }),
        foreignClaims: foreignClaimsGauge(ctx.metrics.registry),
        clock: ctx.clock,
        resyncMs: options.resyncMs ?? DEFAULT_RESYNC_MS,
        warned: new Map(),
        reportedClaims: new Set(),
      };
      const controller = new Controller<string>({
        name,
        reconcile: (location) => reconcile(location, deps),
        toString: (location) => location,
        fromString: (location) => location,
        planeOf: () => ctx.hub.name,
        clock: ctx.clock,
        log: ctx.log,
        metrics: ctx.metrics,
        // Policies and ServingLocations are written where no watch of the publisher reports
        // every refusal: a stale write backs off.
        onStale: 'backoff',
      });
      for (const trigger of triggers(deps)) controller.watch(trigger);
      return controller;
    },
  };
}

/** The publisher with the default safety resync. */
export const locationPublisherController: ControllerDefinition = locationPublisherWith();
