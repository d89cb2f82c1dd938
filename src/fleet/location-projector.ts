/**
 * Location projector (controllers.md §2): the fleet's stand-in for the platform's service
 * catalogue. It keeps LocationBinding `<loc>` in the plane of project `P` exactly while Project
 * `P` is Ready, Location `<loc>` is Ready, and some ServiceAvailability for
 * `networking.datumapis.com` at `<loc>` is Available. Not part of `netpresence manager`: against a
 * real platform the catalogue writes LocationBindings.
 *
 * Guarantees:
 * - only bindings labelled `app.kubernetes.io/managed-by=netpresence-location-projector` are
 *   updated or deleted; a binding someone else wrote is never touched;
 * - a managed binding mirrors the Location (class, topology) and reports `Available=True`
 *   `AllGatesOpen`; writes are merge patches of owned keys, skipped when nothing differs;
 * - no finalizers and no owner references are written.
 * Assumes: the platform stores have listed before the controller starts (as the manager and the
 * scenario harness ensure); a project plane's keys are judged once its bindings have listed.
 */
import { LOCATION_LABEL } from '../apis/common/labels.ts';
import {
  LOCATION_CLASS_LABEL,
  LOCATION_PROJECTOR,
  LocationBindingConditionType,
  locationBindingKind,
  locationBindingMessages,
  LocationBindingReason,
  locationBindingName,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  type LocationBinding,
} from '../apis/networking/v1alpha/location-binding.ts';
import { LocationConditionType, locationKind, type Location } from '../apis/networking/v1alpha/location.ts';
import { projectKind, ProjectConditionType, type Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import {
  NETWORKING_SERVICE,
  ServiceAvailabilityConditionType,
  serviceAvailabilityKind,
  type ServiceAvailability,
} from '../apis/services/v1alpha1/service-availability.ts';
import type { ResourceClient } from '../client/types.ts';
import type { Clock } from '../runtime/clock.ts';
import { Controller, ROUND_TRIP_WORKERS, type Outcome } from '../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../runtime/informer-contract.ts';
import { projectPlaneName, type EngagedPlane } from '../runtime/planes.ts';
import { forObject, watches } from '../runtime/triggers.ts';
import type { ControllerDefinition, ManagerContext } from '../runtime/manager-context.ts';
import { isConditionTrue, setCondition } from '../runtime/conditions.ts';
import { ProjectPlaneWatch, type PlaneWatch } from '../controllers/shared/project-plane-watch.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import { changedEntries, changedLabels, patchStatus } from '../runtime/writes.ts';

export const name = 'location-projector';

export interface ProjectedLocationKey {
  project: string;
  location: string;
}

/** What one reconcile reads and writes in an engaged project plane. */
export interface ProjectorPlaneView {
  bindings: ObjectStore<LocationBinding>;
  client: ResourceClient<LocationBinding>;
}

export interface ProjectorDeps {
  projects: ObjectStore<Project>;
  locations: ObjectStore<Location>;
  availabilities: ObjectStore<ServiceAvailability>;
  planes: ProjectPlaneWatch<ProjectedLocationKey, ProjectorPlaneView>;
  clock: Clock;
}

export async function reconcile(key: ProjectedLocationKey, deps: ProjectorDeps): Promise<Outcome | void> {
  const plane = deps.planes.view(key.project);
  if (!plane) return; // engagement and the first list bring the key back
  const binding = plane.bindings.get(undefined, locationBindingName(key.location));
  if (binding && binding.metadata.labels?.[MANAGED_BY_LABEL] !== LOCATION_PROJECTOR) return;
  const location = deps.locations.get(undefined, key.location);
  if (!location || !gatesOpen(key, location, deps)) {
    if (binding) {
      await plane.client.delete(binding.metadata.name!, undefined, {
        preconditions: { uid: binding.metadata.uid },
      });
    }
    return;
  }
  await projectBinding(binding, location, plane, deps);
}

function gatesOpen(key: ProjectedLocationKey, location: Location, deps: ProjectorDeps): boolean {
  const project = deps.projects.get(undefined, key.project);
  return (
    project !== undefined &&
    isConditionTrue(project.status?.conditions, ProjectConditionType.Ready) &&
    isConditionTrue(location.status?.conditions, LocationConditionType.Ready) &&
    deps.availabilities
      .byIndex(BY_SERVICE_LOCATION, serviceLocationValue(NETWORKING_SERVICE, key.location))
      .some((availability) =>
        isConditionTrue(availability.status?.conditions, ServiceAvailabilityConditionType.Available),
      )
  );
}

/** Step 5: create or patch the binding to mirror the Location, then report it available. */
async function projectBinding(
  stored: LocationBinding | undefined,
  location: Location,
  plane: ProjectorPlaneView,
  deps: ProjectorDeps,
): Promise<void> {
  const locationName = location.metadata.name!;
  const labels = {
    [LOCATION_LABEL]: locationName,
    [LOCATION_CLASS_LABEL]: location.spec.locationClassName,
    [SERVICE_NAME_LABEL]: NETWORKING_SERVICE,
    [MANAGED_BY_LABEL]: LOCATION_PROJECTOR,
  };
  const spec: LocationBinding['spec'] = {
    locationRef: { name: locationName },
    locationClassName: location.spec.locationClassName,
    displayName: locationName,
    topology: location.spec.topology,
  };
  const binding = stored
    ? await patchBinding(stored, labels, spec, plane)
    : await plane.client.create({ metadata: { name: locationBindingName(locationName), labels }, spec });
  const conditions = setCondition(
    binding.status?.conditions,
    {
      type: LocationBindingConditionType.Available,
      status: 'True',
      reason: LocationBindingReason.AllGatesOpen,
      message: locationBindingMessages.allGatesOpen(locationName),
    },
    binding.metadata.generation,
    deps.clock.now(),
  );
  await patchStatus(plane.client, binding, { conditions });
}

async function patchBinding(
  binding: LocationBinding,
  labels: Record<string, string>,
  desired: LocationBinding['spec'],
  plane: ProjectorPlaneView,
): Promise<LocationBinding> {
  const held = binding.spec;
  const spec: Record<string, unknown> = {};
  if (held.locationRef.name !== desired.locationRef.name) spec.locationRef = desired.locationRef;
  if (held.locationClassName !== desired.locationClassName)
    spec.locationClassName = desired.locationClassName;
  if (held.displayName !== desired.displayName) spec.displayName = desired.displayName;
  const topology = changedEntries(held.topology, desired.topology ?? {});
  if (topology) spec.topology = topology;
  const changed = changedLabels(binding, labels);
  if (!changed && Object.keys(spec).length === 0) return binding;
  return plane.client.patchMerge(binding.metadata.name!, undefined, {
    ...(changed && { metadata: { labels: changed } }),
    ...(Object.keys(spec).length > 0 && { spec }),
  });
}

// ---- triggers -------------------------------------------------------------------------------

const PROJECTS = resourceIdOf(projectKind);
const LOCATIONS = resourceIdOf(locationKind);
const SERVICE_AVAILABILITIES = resourceIdOf(serviceAvailabilityKind);
const LOCATION_BINDINGS = resourceIdOf(locationBindingKind);

/** ServiceAvailabilities by (service, location), from `spec`. */
const BY_SERVICE_LOCATION = 'byServiceLocation';
const serviceLocationValue = (service: string, location: string): string =>
  JSON.stringify([service, location]);
const byServiceLocation = (availability: ServiceAvailability): string[] => [
  serviceLocationValue(availability.spec.serviceRef.name, availability.spec.locationRef.name),
];

function keyString(key: ProjectedLocationKey): string {
  return JSON.stringify([key.project, key.location]);
}

function keyFromString(value: string): ProjectedLocationKey {
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((part) => typeof part === 'string'))
    throw new Error(`a projector key is a JSON array of project and location, got ${value}`);
  const [project, location] = parsed;
  return { project, location };
}

function watchPlane(locations: ObjectStore<Location>) {
  return (plane: EngagedPlane): PlaneWatch<ProjectedLocationKey, ProjectorPlaneView> => {
    const project = plane.project;
    const bindings = plane.informer<LocationBinding>(LOCATION_BINDINGS);
    return {
      view: { bindings: bindings.store, client: plane.client<LocationBinding>(LOCATION_BINDINGS) },
      informers: [bindings],
      triggers: [forObject(bindings, (binding) => ({ project, location: binding.metadata.name! }))],
      keys: () => locations.list().map((location) => ({ project, location: location.metadata.name! })),
    };
  };
}

function buildProjector(ctx: ManagerContext): Controller<ProjectedLocationKey> {
  const projects = ctx.platform.informer<Project>(PROJECTS);
  const locations = ctx.platform.informer<Location>(LOCATIONS);
  const availabilities = ctx.platform.informer<ServiceAvailability>(SERVICE_AVAILABILITIES, {
    indexes: { [BY_SERVICE_LOCATION]: byServiceLocation },
  });
  const planes = new ProjectPlaneWatch(ctx.projects, watchPlane(locations.store));
  const deps: ProjectorDeps = {
    projects: projects.store,
    locations: locations.store,
    availabilities: availabilities.store,
    planes,
    clock: ctx.clock,
  };
  const everyLocation = (project: string): ProjectedLocationKey[] =>
    locations.store.list().map((location) => ({ project, location: location.metadata.name! }));
  const everyProject = (location: string): ProjectedLocationKey[] =>
    planes.projects().map((project) => ({ project, location }));
  const controller = new Controller<ProjectedLocationKey>({
    name,
    reconcile: (key) => reconcile(key, deps),
    toString: keyString,
    fromString: keyFromString,
    planeOf: (key) => projectPlaneName(key.project),
    workers: ROUND_TRIP_WORKERS,
    clock: ctx.clock,
    log: ctx.log,
    metrics: ctx.metrics,
  });
  controller.watch(planes.trigger());
  controller.watch(watches(projects, (event) => everyLocation(event.object.metadata.name!)));
  controller.watch(watches(locations, (event) => everyProject(event.object.metadata.name!)));
  controller.watch(
    watches(availabilities, (event: InformerEvent<ServiceAvailability>) =>
      event.object.spec.serviceRef.name === NETWORKING_SERVICE
        ? everyProject(event.object.spec.locationRef.name)
        : [],
    ),
  );
  return controller;
}

export const locationProjector: ControllerDefinition = { name, build: buildProjector };
