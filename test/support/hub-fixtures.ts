/**
 * Fixtures and reads shared by the hub scenario tests (presence, replicator, location publisher;
 * scenarios.md §5–§7): fixture F's hub objects, fixture P, bindings, and the Events a
 * controller recorded. Project-plane fixtures and waits come from project-fixtures.ts.
 */
import { clusterKind, type Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import type { Condition } from '../../src/apis/common/condition.ts';
import type { LocationBinding } from '../../src/apis/networking/v1alpha/location-binding.ts';
import {
  networkBindingKind,
  type NetworkBinding,
} from '../../src/apis/networking/v1alpha/network-binding.ts';
import type { Network } from '../../src/apis/networking/v1alpha/network.ts';
import { servingLocationKind } from '../../src/apis/networking/v1alpha/serving-location.ts';
import { clusterPropagationPolicyKind } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { propagationPolicyKind } from '../../src/apis/policy/v1alpha1/propagation-policy.ts';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { EVENTS, NAMESPACES, resourceIdOf } from '../../src/runtime/resource-ids.ts';
import {
  ALPHA,
  createAvailability,
  createLocation,
  LOCATION_BINDINGS,
  NETWORKS,
  planeOf,
  US_CENTRAL_1,
  writeCondition,
} from './project-fixtures.ts';
import type { Scenario } from './scenario.ts';

export const NETWORK_BINDINGS = resourceIdOf(networkBindingKind);
export const CLUSTERS = resourceIdOf(clusterKind);
export const SERVING_LOCATIONS = resourceIdOf(servingLocationKind);
export const CLUSTER_PROPAGATION_POLICIES = resourceIdOf(clusterPropagationPolicyKind);
export const PROPAGATION_POLICIES = resourceIdOf(propagationPolicyKind);
export { EVENTS, NAMESPACES };

export const CELL_A = 'cell-a';
export const VPC = 'vpc';
/** `C`: the context of `vpc` in `us-central-1`. */
export const C = 'vpc-us-central-1';

/** A Cluster on the hub, `Ready` as asked, with the given labels. */
export async function createCluster(
  s: Scenario,
  name: string,
  labels: Record<string, string>,
  ready = true,
): Promise<Cluster> {
  const clusters = s.client<Cluster>('hub', CLUSTERS);
  await clusters.create({ metadata: { name, labels }, spec: { syncMode: 'Push' } });
  return writeCondition(
    clusters,
    name,
    undefined,
    'Ready',
    ready ? 'True' : 'False',
    ready ? 'ClusterReady' : 'ClusterNotReady',
  );
}

/**
 * Fixture F's platform and hub objects: Location `us-central-1` Ready, its networking
 * ServiceAvailability, hub namespace `H` of `project-alpha`/`default`, Cluster `cell-a` labelled
 * for `us-central-1`. Returns `H`.
 */
export async function fixtureHub(s: Scenario): Promise<string> {
  await createLocation(s);
  await createAvailability(s);
  const hubNamespace = await s.hubNamespace(ALPHA);
  await createCluster(s, CELL_A, { [CLUSTER_LOCATION_LABEL]: US_CENTRAL_1 });
  return hubNamespace;
}

export interface FixturePOptions {
  /** Network `vpc`'s spec beyond `ipam.mode: Auto`; false: no Network. */
  network?: Partial<Network['spec']> | false;
  /** LocationBinding `us-central-1`; default true. */
  locationBinding?: boolean;
}

/** Fixture P: fixture F's platform and hub objects, LocationBinding `us-central-1` and Network `vpc`. */
export async function fixtureP(s: Scenario, options: FixturePOptions = {}): Promise<string> {
  const hubNamespace = await fixtureHub(s);
  if (options.locationBinding !== false) await createLocationBinding(s, ALPHA, US_CENTRAL_1);
  if (options.network !== false) await createNetwork(s, ALPHA, VPC, options.network ?? {});
  return hubNamespace;
}

export async function createLocationBinding(
  s: Scenario,
  project: string,
  location: string,
): Promise<LocationBinding> {
  return s.client<LocationBinding>(planeOf(project), LOCATION_BINDINGS).create({
    metadata: { name: location },
    spec: { locationRef: { name: location } },
  });
}

export async function createNetwork(
  s: Scenario,
  project: string,
  name: string,
  spec: Partial<Network['spec']> = {},
): Promise<Network> {
  return s.client<Network>(planeOf(project), NETWORKS).create({
    metadata: { name, namespace: 'default' },
    spec: { ipam: { mode: 'Auto' }, ...spec },
  });
}

/** A NetworkBinding for (`network`, `location`) in hub namespace `namespace`. */
export function binding(
  name: string,
  namespace: string,
  network: string,
  location = US_CENTRAL_1,
  extra: { labels?: Record<string, string>; networkNamespace?: string; finalizers?: string[] } = {},
): NetworkBinding {
  return {
    metadata: {
      name,
      namespace,
      ...(extra.labels && { labels: extra.labels }),
      ...(extra.finalizers && { finalizers: extra.finalizers }),
    },
    spec: {
      network: { name: network, ...(extra.networkNamespace && { namespace: extra.networkNamespace }) },
      location: { name: location },
      consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
    },
  };
}

export function readyOf(
  object: { status?: { conditions?: Condition[] } } | undefined,
): Condition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

export interface RecordedEvent extends KubeObject {
  reason?: string;
  type?: string;
  action?: string;
  note?: string;
  regarding?: { kind?: string; name?: string; namespace?: string; uid?: string };
}

/** The events.k8s.io Events with `reason` recorded in `plane`. */
export async function eventsWithReason(s: Scenario, plane: string, reason: string): Promise<RecordedEvent[]> {
  const { items } = await s.client<RecordedEvent>(plane, EVENTS).list();
  return items.filter((event) => event.reason === reason);
}
