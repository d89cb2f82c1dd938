/**
 * The status a controller holding an IPAM range reports (controllers.md §3 and §4, "Report"):
 * `IPAMAllocated` when the pass decided it, `Ready` following it, and the `ipam` block.
 *
 * Guarantees: `Ready` follows `IPAMAllocated` whenever that exists (readyFollowing), and says
 * `readyMessage` while it never was written; time moves only with status (setCondition); the
 * status subresource is written once, and only when something changed (patchStatus).
 */
import type { Condition } from '../../apis/common/condition.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import {
  findCondition,
  readyFollowing,
  setCondition,
  type DesiredCondition,
} from '../../runtime/conditions.ts';
import { patchStatus } from '../../runtime/writes.ts';

/** The condition type, as Network and NetworkContext both name it. */
export const IPAM_ALLOCATED = 'IPAMAllocated';

export interface IpamReport<Ipam> {
  ipamAllocated?: Omit<DesiredCondition, 'type'>;
  ipam?: Ipam;
  /** Ready's message while `IPAMAllocated` has never been written. */
  readyMessage: string;
}

type HoldsRange<Ipam> = KubeObject & { status?: { conditions?: Condition[]; ipam?: Ipam } };

export async function reportIpam<Ipam, T extends HoldsRange<Ipam>>(
  client: ResourceClient<T>,
  object: T,
  outcome: IpamReport<Ipam>,
  now: number,
): Promise<void> {
  const generation = object.metadata.generation;
  let conditions = object.status?.conditions;
  if (outcome.ipamAllocated)
    conditions = setCondition(
      conditions,
      { type: IPAM_ALLOCATED, ...outcome.ipamAllocated },
      generation,
      now,
    );
  const ready = readyFollowing(findCondition(conditions, IPAM_ALLOCATED), outcome.readyMessage);
  conditions = setCondition(conditions, ready, generation, now);
  await patchStatus(client, object, { conditions, ...(outcome.ipam && { ipam: outcome.ipam }) });
}
