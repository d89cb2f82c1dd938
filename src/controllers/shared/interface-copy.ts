/**
 * Writing a NetworkInterface copy (controllers.md §13, "Content"): what a copy holds, computed
 * from its source, and the writes that make a held copy equal to it — shared by the cell's
 * write-back (hub copies) and the manager's interface projector (project copies).
 *
 * Guarantees:
 * - a copy's `spec` is the interface's without `claimRef` and `attachmentMode`, its `status` the
 *   interface's `phase` and `conditions` only; its labels and owner references are owned whole
 *   (a label someone added is removed), and it carries no finalizer;
 * - nothing is written when the held copy already equals the desired one; otherwise one write
 *   for metadata and spec together and one for status, each only when that part differs;
 * - a create is followed by its status write (the status subresource ignores status on create).
 * Caveat: the API server defaults `spec.attachmentMode` (`Netns`) on every write of a copy, so
 * a held copy's `attachmentMode` is not compared: the copy never claims to carry it.
 */
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import { NETWORKING_API_VERSION } from '../../apis/networking/v1alpha/group.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { mergePatchBetween } from '../../runtime/merge-patch-diff.ts';
import { changedEntries } from '../../runtime/writes.ts';

type OwnerReference = NonNullable<KubeObject['metadata']['ownerReferences']>[number];

/** A copy as both controllers read and write it. */
export type InterfaceCopy = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export interface CopyContent {
  labels: Record<string, string>;
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
  ownerReferences?: OwnerReference[];
}

/** The interface's spec without `claimRef` and `attachmentMode`. */
export function copySpec(iface: NetworkInterface): Record<string, unknown> {
  const { claimRef: _claimRef, attachmentMode: _attachmentMode, ...spec } = iface.spec;
  return spec;
}

/** The interface's `phase` and `conditions`, only those it has. */
export function copyStatus(iface: { status?: Record<string, unknown> }): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  if (iface.status?.phase !== undefined) status.phase = iface.status.phase;
  if (iface.status?.conditions !== undefined) status.conditions = iface.status.conditions;
  return status;
}

/** The spec patch, the server-defaulted `attachmentMode` left out of the comparison. */
function specPatch(held: Record<string, unknown> | undefined, desired: Record<string, unknown>) {
  const { attachmentMode: _defaulted, ...compared } = held ?? {};
  return mergePatchBetween(compared, desired);
}

function sameOwners(held: OwnerReference[] | undefined, desired: OwnerReference[] | undefined): boolean {
  return mergePatchBetween(held ?? [], desired ?? []) === undefined;
}

/**
 * Makes copy `name` in `namespace` hold `desired`, given the copy as the store holds it
 * (undefined: absent). Throws what the client throws (a 404 on create: the namespace is gone).
 */
export async function writeCopy(
  client: ResourceClient<InterfaceCopy>,
  held: InterfaceCopy | undefined,
  name: string,
  namespace: string,
  desired: CopyContent,
): Promise<void> {
  let current = held;
  if (!current) {
    current = await client.create({
      apiVersion: NETWORKING_API_VERSION,
      kind: 'NetworkInterface',
      metadata: {
        name,
        namespace,
        labels: desired.labels,
        ...(desired.ownerReferences && { ownerReferences: desired.ownerReferences }),
      },
      spec: desired.spec,
    });
  } else {
    const labels = changedEntries(current.metadata.labels, desired.labels);
    const owners = !sameOwners(current.metadata.ownerReferences, desired.ownerReferences);
    const finalizers = (current.metadata.finalizers ?? []).length > 0;
    const spec = specPatch(current.spec, desired.spec);
    if (labels || owners || finalizers || spec !== undefined)
      current = await client.patchMerge(name, namespace, {
        metadata: {
          resourceVersion: current.metadata.resourceVersion,
          ...(labels && { labels }),
          ...(owners && { ownerReferences: desired.ownerReferences ?? null }),
          ...(finalizers && { finalizers: null }),
        },
        ...(spec !== undefined && { spec }),
      });
  }
  const status = mergePatchBetween(current.status ?? {}, desired.status);
  if (status !== undefined)
    await client.patchMerge(
      name,
      namespace,
      { metadata: { resourceVersion: current.metadata.resourceVersion }, status },
      { subresource: 'status' },
    );
}
