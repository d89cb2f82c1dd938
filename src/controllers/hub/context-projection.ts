/**
 * Projection of a Network onto the NetworkContext of one (network, location) pair in the project
 * plane (controllers.md §5 step 11): the labels, spec and controller reference the presence
 * controller owns on the context.
 *
 * Guarantees: `contextPatch` is a merge patch of exactly the owned keys that differ, or
 * undefined when none does — labels it does not own are never touched, and the owner
 * references of others are kept (the list is written whole, as a merge patch must, with ours
 * added beside them). `ipFamilies` is the Network's list in its order, omitted when empty.
 * A context whose controller reference names something else than this Network is left with it:
 * step 10 refuses an earlier Network's context before any projection.
 */
import type { OwnerReference } from '../../apis/common/meta.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import { LOCATION_LABEL, NETWORK_LABEL, NETWORK_UID_LABEL } from '../../apis/common/labels.ts';
import { NETWORKING_API_VERSION } from '../../apis/networking/v1alpha/group.ts';
import { networkKind, type Network } from '../../apis/networking/v1alpha/network.ts';
import { networkContextKind, type NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { PresenceKey } from './presence-keys.ts';

export interface ContextProjection {
  labels: Record<string, string>;
  spec: NetworkContext['spec'];
  owner: OwnerReference;
}

export function projectContext(
  key: PresenceKey,
  clusterNameLabel: string,
  projectNamespace: string,
  network: Network,
): ContextProjection {
  const families = network.spec.ipFamilies ?? [];
  return {
    labels: {
      [UPSTREAM_CLUSTER_NAME_LABEL]: clusterNameLabel,
      [UPSTREAM_NAMESPACE_LABEL]: projectNamespace,
      [NETWORK_LABEL]: key.network,
      [LOCATION_LABEL]: key.location,
      [NETWORK_UID_LABEL]: network.metadata.uid ?? '',
    },
    spec: {
      network: { name: key.network },
      location: { name: key.location },
      ...(families.length > 0 && { ipFamilies: [...families] }),
      ...(network.spec.mtu !== undefined && { mtu: network.spec.mtu }),
      ...(network.metadata.generation !== undefined && { networkGeneration: network.metadata.generation }),
    },
    owner: {
      apiVersion: NETWORKING_API_VERSION,
      kind: networkKind.kind,
      name: network.metadata.name!,
      uid: network.metadata.uid!,
      controller: true,
      blockOwnerDeletion: true,
    },
  };
}

/** A new context as projected, carrying `finalizers` from its create (PresenceConfig). */
export function newContext(
  name: string,
  namespace: string,
  projection: ContextProjection,
  finalizers: readonly string[] = [],
): NetworkContext {
  return {
    apiVersion: NETWORKING_API_VERSION,
    kind: networkContextKind.kind,
    metadata: {
      name,
      namespace,
      labels: projection.labels,
      ownerReferences: [projection.owner],
      ...(finalizers.length > 0 && { finalizers: [...finalizers] }),
    },
    spec: projection.spec,
  };
}

/** The merge patch bringing `context` to `projection`, or undefined when it already matches. */
export function contextPatch(context: NetworkContext, projection: ContextProjection): object | undefined {
  const patch: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> } = {};
  const labels = labelsPatch(context.metadata.labels ?? {}, projection.labels);
  const owners = ownersPatch(context.metadata.ownerReferences ?? [], projection.owner);
  if (labels || owners)
    patch.metadata = { ...(labels && { labels }), ...(owners && { ownerReferences: owners }) };
  const spec = specPatch(context.spec, projection.spec);
  if (spec) patch.spec = spec;
  return patch.metadata || patch.spec ? patch : undefined;
}

function labelsPatch(held: Record<string, string>, desired: Record<string, string>) {
  const missing = Object.entries(desired).filter(([key, value]) => held[key] !== value);
  return missing.length > 0 ? Object.fromEntries(missing) : undefined;
}

const SPEC_FIELDS = ['network', 'location', 'ipFamilies', 'mtu', 'networkGeneration'] as const;

function specPatch(held: NetworkContext['spec'], desired: NetworkContext['spec']) {
  const patch: Record<string, unknown> = {};
  for (const field of SPEC_FIELDS) {
    if (JSON.stringify(held[field]) === JSON.stringify(desired[field])) continue;
    patch[field] = desired[field] ?? null;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

function ownersPatch(held: OwnerReference[], owner: OwnerReference): OwnerReference[] | undefined {
  const controllerRef = held.find((ref) => ref.controller === true);
  if (!controllerRef) return [...held, owner];
  if (controllerRef.kind !== owner.kind || controllerRef.uid !== owner.uid) return undefined;
  const same =
    controllerRef.apiVersion === owner.apiVersion &&
    controllerRef.name === owner.name &&
    controllerRef.blockOwnerDeletion === true;
  return same ? undefined : held.map((ref) => (ref === controllerRef ? owner : ref));
}
