/**
 * Fixtures and waits shared by the project-plane scenario tests (location projector, network,
 * networkcontext; scenarios.md §2–§4): the ResourceIds of the kinds they touch, fixture F's
 * platform objects, writing a condition the way the platform or a data plane would, running a
 * controller the test starts and stops itself, and waiting for a controller to go quiet.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Condition } from '../../src/apis/common/condition.ts';
import { projectCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { ipClaimKind } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { ipClassKind } from '../../src/apis/ipam/v1alpha1/ip-class.ts';
import { ipPoolKind } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import { locationBindingKind } from '../../src/apis/networking/v1alpha/location-binding.ts';
import { locationKind, type Location } from '../../src/apis/networking/v1alpha/location.ts';
import { networkContextKind } from '../../src/apis/networking/v1alpha/network-context.ts';
import { networkKind } from '../../src/apis/networking/v1alpha/network.ts';
import { subnetKind } from '../../src/apis/networking/v1alpha/subnet.ts';
import { projectKind } from '../../src/apis/resourcemanager/v1alpha1/project.ts';
import {
  NETWORKING_SERVICE,
  serviceAvailabilityKind,
  serviceAvailabilityName,
  type ServiceAvailability,
} from '../../src/apis/services/v1alpha1/service-availability.ts';
import type { KubeObject, ResourceClient } from '../../src/client/types.ts';
import type { ControllerDefinition, ManagerContext } from '../../src/runtime/manager-context.ts';
import { conditionTime } from '../../src/runtime/conditions.ts';
import { resourceIdOf } from '../../src/runtime/resource-ids.ts';
import type { RunnableController } from '../../src/runtime/controller.ts';
import { projectKubeConfig } from '../../src/runtime/planes.ts';
import { eventually } from './apiserver.ts';
import type { Scenario } from './scenario.ts';

export const PROJECTS = resourceIdOf(projectKind);
export const LOCATIONS = resourceIdOf(locationKind);
export const SERVICE_AVAILABILITIES = resourceIdOf(serviceAvailabilityKind);
export const LOCATION_BINDINGS = resourceIdOf(locationBindingKind);
export const NETWORKS = resourceIdOf(networkKind);
export const NETWORK_CONTEXTS = resourceIdOf(networkContextKind);
export const SUBNETS = resourceIdOf(subnetKind);
export const IP_CLAIMS = resourceIdOf(ipClaimKind);
export const IP_POOLS = resourceIdOf(ipPoolKind);
export const IP_CLASSES = resourceIdOf(ipClassKind);

/** "Within 2 seconds on the embedded fleet". */
export const WITHIN = 2000;

export const ALPHA = 'project-alpha';
export const US_CENTRAL_1 = 'us-central-1';

/** Fixture F's Location topology. */
export const fixtureTopology = (): Record<string, string> => ({
  'topology.datum.net/city-code': 'DFW',
  'topology.datum.net/region': 'us-central1',
});

export function planeOf(project: string): string {
  return `project-${project}`;
}

/** Waits up to `timeoutMs` for `check` to hold (return true). */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  await eventually(async () => ((await check()) ? true : undefined), timeoutMs, what);
}

/** An object to look for: its client, name and (when namespaced) namespace. */
export type ObjectRef = [client: ResourceClient<any>, name: string, namespace?: string];

/** Waits until every object is gone, all within one bound measured from now. */
export async function allGone(refs: ObjectRef[], timeoutMs = WITHIN): Promise<void> {
  const names = refs.map(([client, name]) => `${client.id.kind} ${name}`).join(', ');
  await until(
    async () => (await Promise.all(refs.map(([client, name, ns]) => client.get(name, ns)))).every((o) => !o),
    timeoutMs,
    `${names} to go`,
  );
}

/** Sets condition `type` on an object's status as the platform (or a data plane) would, with `alongside` status fields in the same write. */
export async function writeCondition<T extends KubeObject & { status?: { conditions?: Condition[] } }>(
  client: ResourceClient<T>,
  name: string,
  namespace: string | undefined,
  type: string,
  status: 'True' | 'False',
  reason: string,
  alongside: Record<string, unknown> = {},
): Promise<T> {
  const object = await client.get(name, namespace);
  if (!object) throw new Error(`${client.id.kind} ${name} is not there to write ${type} on`);
  const held = object.status?.conditions ?? [];
  const condition: Condition = {
    type,
    status,
    reason,
    message: `${type} is ${status}`,
    lastTransitionTime: conditionTime(Date.now()),
    observedGeneration: object.metadata.generation,
  };
  const conditions = held.some((c) => c.type === type)
    ? held.map((c) => (c.type === type ? condition : c))
    : [...held, condition];
  return client.patchMerge(
    name,
    namespace,
    { status: { ...alongside, conditions } },
    { subresource: 'status' },
  );
}

/** Fixture F's Location `us-central-1` (or `name`), Ready. */
export async function createLocation(s: Scenario, name = US_CENTRAL_1): Promise<Location> {
  const locations = s.client<Location>('platform', LOCATIONS);
  await locations.create({
    metadata: { name },
    spec: { locationClassName: 'datum-managed', topology: fixtureTopology(), provider: {} },
  });
  return writeCondition(locations, name, undefined, 'Ready', 'True', 'Ready');
}

/** The ServiceAvailability of `service` at `location`, Available. */
export async function createAvailability(
  s: Scenario,
  location = US_CENTRAL_1,
  service = NETWORKING_SERVICE,
): Promise<ServiceAvailability> {
  const availabilities = s.client<ServiceAvailability>('platform', SERVICE_AVAILABILITIES);
  const name = serviceAvailabilityName(service, location);
  await availabilities.create({
    metadata: { name },
    spec: { serviceRef: { name: service }, locationRef: { name: location } },
  });
  return writeCondition(availabilities, name, undefined, 'Available', 'True', 'Available');
}

/**
 * Serves project `name`'s plane with the project CRDs and creates its Project, not Ready (the
 * platform is still provisioning it); `markProjectReady` finishes. Returns the plane's KubeConfig.
 */
export async function addUnreadyProject(s: Scenario, name: string): Promise<KubeConfig> {
  s.server.addProjectPlane(name);
  const kubeConfig = projectKubeConfig(s.kubeConfig('platform'), name);
  await installCrds(kubeConfig, projectCrds);
  await s.client('platform', PROJECTS).create({
    metadata: { name },
    spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
  });
  return kubeConfig;
}

export async function markProjectReady(s: Scenario, name: string): Promise<void> {
  await writeCondition(s.client('platform', PROJECTS), name, undefined, 'Ready', 'True', 'Ready');
}

/** Builds and starts a controller the test stops (or restarts) itself. */
export async function runController(
  ctx: ManagerContext,
  definition: ControllerDefinition,
): Promise<RunnableController> {
  const controller = definition.build(ctx);
  await controller.start();
  return controller;
}

async function reconciles(ctx: ManagerContext, controller: string): Promise<number> {
  const metric = await ctx.metrics.reconcileTotal.get();
  return metric.values.filter((v) => v.labels.controller === controller).reduce((sum, v) => sum + v.value, 0);
}

async function depth(ctx: ManagerContext, controller: string): Promise<number> {
  const metric = await ctx.metrics.workqueueDepth.get();
  return metric.values.find((v) => v.labels.name === controller)?.value ?? 0;
}

/** How many reconciles `controller` has finished so far. */
export function reconcileCount(ctx: ManagerContext, controller: string): Promise<number> {
  return reconciles(ctx, controller);
}

/**
 * Waits until `controller` has finished a reconcile since `since` (a `reconcileCount`), its
 * queue is empty, and no reconcile finishes for a short quiet spell: what it was woken for has
 * been judged. Used before asserting that something did not happen.
 */
export async function quiet(
  ctx: ManagerContext,
  controller: string,
  since: number,
  timeoutMs = 5000,
): Promise<void> {
  await until(
    async () => (await reconciles(ctx, controller)) > since,
    timeoutMs,
    `${controller} to reconcile`,
  );
  for (;;) {
    const before = await reconciles(ctx, controller);
    await new Promise((resolve) => setTimeout(resolve, 100));
    if ((await depth(ctx, controller)) === 0 && (await reconciles(ctx, controller)) === before) return;
  }
}
