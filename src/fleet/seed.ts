/**
 * Seed: the objects of the fleet config, written through the API as the platform's admin would.
 *
 * - Once per data directory (a fresh fleet): each Location with `Ready` as configured, a
 *   ServiceAvailability `networking.datumapis.com--<loc>` `Available=True` where networking is
 *   offered, each Project, and — once its plane is provisioned — its Networks in namespace
 *   `default`. The ConfigMap `netpresence-fleet` in the platform's `kube-system` records that the
 *   seed ran, so a restart on the same data directory resumes what the user made of the fleet.
 * - On every start: each cell's `Cluster` on the hub (`syncMode: Push`, labelled with its
 *   location), created when absent and never relabelled.
 *
 * Guarantees: seeding is resumable — an object that already exists is left as it is, and the
 * record is written last, so a fleet stopped mid-seed seeds the rest on the next start.
 */
import { clusterKind, type Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { type Condition } from '../apis/common/condition.ts';
import { CLUSTER_LOCATION_LABEL } from '../apis/common/labels.ts';
import { LocationConditionType, locationKind, type Location } from '../apis/networking/v1alpha/location.ts';
import { networkKind, type Network } from '../apis/networking/v1alpha/network.ts';
import { projectKind, type Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import {
  NETWORKING_SERVICE,
  ServiceAvailabilityConditionType,
  serviceAvailabilityKind,
  serviceAvailabilityName,
  type ServiceAvailability,
} from '../apis/services/v1alpha1/service-availability.ts';
import { AlreadyExistsError } from '../client/errors.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import type { PlaneAccess } from '../runtime/manager-context.ts';
import { conditionTime } from '../runtime/conditions.ts';
import { forEachConcurrently } from '../runtime/for-each-concurrently.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import type { CellConfig, FleetConfig, LocationConfig } from './config.ts';
import { PROJECT_NAMESPACE } from './project-provisioner.ts';

export const SEED_RECORD = 'netpresence-fleet';
export const SEED_RECORD_NAMESPACE = 'kube-system';
/** How many of the seed's creates are in flight at once. */
const SEED_CONCURRENCY = 16;

const CONFIG_MAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

export const seedMessages = {
  locationReady: (location: string) => `Location "${location}" is ready`,
  locationNotReady: (location: string) => `Location "${location}" is not ready`,
  networkingAvailable: (location: string) => `${NETWORKING_SERVICE} is available in ${location}`,
};

export interface SeedPlanes {
  platform: PlaneAccess;
  hub: PlaneAccess;
  /** Resolves with the project's plane once the provisioner serves it. */
  projectPlane(project: string): Promise<PlaneAccess>;
}

async function createIfAbsent<T extends KubeObject>(client: ResourceClient<T>, object: T): Promise<T> {
  try {
    return await client.create(object);
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
    return (await client.get(object.metadata.name!, object.metadata.namespace))!;
  }
}

async function setCondition<T extends KubeObject & { status?: { conditions?: Condition[] } }>(
  client: ResourceClient<T>,
  object: T,
  condition: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>,
): Promise<void> {
  const held = object.status?.conditions ?? [];
  const next: Condition = {
    ...condition,
    lastTransitionTime: conditionTime(Date.now()),
    observedGeneration: object.metadata.generation,
  };
  const conditions = [...held.filter((c) => c.type !== condition.type), next];
  await client.patchMerge(
    object.metadata.name!,
    undefined,
    { status: { conditions } },
    { subresource: 'status' },
  );
}

async function seedLocation(platform: PlaneAccess, location: LocationConfig): Promise<void> {
  const locations = platform.client<Location>(resourceIdOf(locationKind));
  const stored = await createIfAbsent(locations, {
    metadata: { name: location.name },
    spec: { locationClassName: location.locationClassName, topology: location.topology, provider: {} },
  });
  await setCondition(locations, stored, {
    type: LocationConditionType.Ready,
    status: location.ready ? 'True' : 'False',
    reason: location.ready ? 'Ready' : 'NotReady',
    message: location.ready
      ? seedMessages.locationReady(location.name)
      : seedMessages.locationNotReady(location.name),
  });
  if (!location.networking) return;
  const availabilities = platform.client<ServiceAvailability>(resourceIdOf(serviceAvailabilityKind));
  const availability = await createIfAbsent(availabilities, {
    metadata: { name: serviceAvailabilityName(NETWORKING_SERVICE, location.name) },
    spec: { serviceRef: { name: NETWORKING_SERVICE }, locationRef: { name: location.name } },
  });
  await setCondition(availabilities, availability, {
    type: ServiceAvailabilityConditionType.Available,
    status: 'True',
    reason: 'Available',
    message: seedMessages.networkingAvailable(location.name),
  });
}

/** Each configured cell's Cluster, created when absent. */
export async function seedClusters(hub: PlaneAccess, cells: CellConfig[]): Promise<void> {
  const clusters = hub.client<Cluster>(resourceIdOf(clusterKind));
  for (const cell of cells) {
    await createIfAbsent(clusters, {
      metadata: { name: cell.name, labels: cell.location ? { [CLUSTER_LOCATION_LABEL]: cell.location } : {} },
      spec: { syncMode: 'Push' },
    });
  }
}

/** Whether this data directory has been seeded. */
export async function isSeeded(platform: PlaneAccess): Promise<boolean> {
  return (await platform.client(CONFIG_MAPS).get(SEED_RECORD, SEED_RECORD_NAMESPACE)) !== undefined;
}

/**
 * The platform objects and projects of the config; resolves once every Network is created.
 * Projects, and then their Networks, are written `SEED_CONCURRENCY` at a time: one after the
 * other, each create would wait its turn behind everything the controllers ask of the same
 * server meanwhile.
 */
export async function seedFleet(planes: SeedPlanes, config: FleetConfig): Promise<void> {
  await forEachConcurrently(config.locations, SEED_CONCURRENCY, (location) =>
    seedLocation(planes.platform, location),
  );
  const projects = planes.platform.client<Project>(resourceIdOf(projectKind));
  await forEachConcurrently(config.projects, SEED_CONCURRENCY, async (project) => {
    await createIfAbsent(projects, {
      metadata: { name: project.name },
      spec: { ownerRef: { kind: 'Organization', name: project.organization } },
    });
  });
  await forEachConcurrently(config.projects, SEED_CONCURRENCY, async (project) => {
    const plane = await planes.projectPlane(project.name);
    const networks = plane.client<Network>(resourceIdOf(networkKind));
    for (const network of project.networks) {
      await createIfAbsent(networks, {
        metadata: { name: network.name, namespace: PROJECT_NAMESPACE },
        spec: { ipam: { mode: 'Auto' }, ipFamilies: network.ipFamilies, mtu: network.mtu },
      });
    }
  });
  await planes.platform.client(CONFIG_MAPS).create({
    metadata: { name: SEED_RECORD, namespace: SEED_RECORD_NAMESPACE },
    data: { seeded: new Date().toISOString() },
  });
}
