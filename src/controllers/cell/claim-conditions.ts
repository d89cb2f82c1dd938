/**
 * The conditions of a claim and its interface (controllers.md §10 steps 12–13, "Reject", "Ready
 * derivation"): computed from what the controller found, set through `setCondition`, so a
 * condition moves only when its status, reason, message or generation does.
 *
 * Guarantees: `Prepared` and `Programmed` belong to the data plane — they are seeded Unknown
 * `Pending` only when absent and never overwritten; a refusal leaves `Bound` and `Allocated`
 * alone once the claim records an interface; `Ready` is the first of Bound, Allocated, Prepared,
 * Programmed that is not True (Unknown stays Unknown), or True when all are.
 */
import type { Condition } from '../../apis/common/condition.ts';
import { ClaimReason, readyMessages } from '../../apis/networking/v1alpha/claim-refusals.ts';
import { ClaimConditionType, READY_INPUTS } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  networkInterfaceMessages,
  NetworkInterfaceReason,
} from '../../apis/networking/v1alpha/network-interface.ts';
import { findCondition, setCondition, type DesiredCondition } from '../../runtime/conditions.ts';

export interface Refusal {
  reason: string;
  message: string;
}

/** Prepared and Programmed as the data plane finds them before it reports. */
const DATA_PLANE_SEEDS: DesiredCondition[] = [
  {
    type: ClaimConditionType.Prepared,
    status: 'Unknown',
    reason: ClaimReason.Pending,
    message: networkInterfaceMessages.waitingToPrepare,
  },
  {
    type: ClaimConditionType.Programmed,
    status: 'Unknown',
    reason: ClaimReason.Pending,
    message: networkInterfaceMessages.waitingToProgram,
  },
];

/** `conditions` with the data-plane conditions seeded where absent. */
export function seedDataPlane(
  conditions: Condition[],
  generation: number | undefined,
  now: number,
): Condition[] {
  return DATA_PLANE_SEEDS.reduce(
    (list, seed) => (findCondition(list, seed.type) ? list : setCondition(list, seed, generation, now)),
    conditions,
  );
}

/** `Allocated` as the allocation check found it: True, or False with the last finding. */
export function allocatedCondition(finding: string | undefined): DesiredCondition {
  return finding === undefined
    ? {
        type: ClaimConditionType.Allocated,
        status: 'True',
        reason: NetworkInterfaceReason.Allocated,
        message: networkInterfaceMessages.allocated,
      }
    : {
        type: ClaimConditionType.Allocated,
        status: 'False',
        reason: NetworkInterfaceReason.AddressAllocationMissing,
        message: finding,
      };
}

/** `Ready` derived from its inputs. */
export function derivedReady(conditions: readonly Condition[]): DesiredCondition {
  for (const type of READY_INPUTS) {
    const input = findCondition(conditions, type);
    if (input?.status === 'True') continue;
    return {
      type: ClaimConditionType.Ready,
      status: input?.status === 'Unknown' || !input ? 'Unknown' : 'False',
      reason: `Not${type}`,
      message: readyMessages.waitingFor(type),
    };
  }
  return {
    type: ClaimConditionType.Ready,
    status: 'True',
    reason: ClaimReason.Ready,
    message: readyMessages.ready,
  };
}

/** The claim's conditions under a refusal (§10 "Reject"). */
export function refusedConditions(
  held: Condition[] | undefined,
  refusal: Refusal,
  bound: boolean,
  generation: number | undefined,
  now: number,
): Condition[] {
  const falseWith = (type: string): DesiredCondition => ({ type, status: 'False', ...refusal });
  let conditions = held ?? [];
  if (!bound) {
    conditions = setCondition(conditions, falseWith(ClaimConditionType.Bound), generation, now);
    conditions = setCondition(conditions, falseWith(ClaimConditionType.Allocated), generation, now);
  }
  conditions = seedDataPlane(conditions, generation, now);
  return setCondition(conditions, falseWith(ClaimConditionType.Ready), generation, now);
}

/** The claim's conditions once bound to interface `iface` (§10 step 13). */
export function boundConditions(
  held: Condition[] | undefined,
  iface: string,
  finding: string | undefined,
  gatewayRefusal: string | undefined,
  generation: number | undefined,
  now: number,
): Condition[] {
  let conditions = setCondition(
    held,
    {
      type: ClaimConditionType.Bound,
      status: 'True',
      reason: ClaimReason.Bound,
      message: readyMessages.bound(iface),
    },
    generation,
    now,
  );
  conditions = setCondition(conditions, allocatedCondition(finding), generation, now);
  conditions = seedDataPlane(conditions, generation, now);
  const ready: DesiredCondition =
    gatewayRefusal === undefined
      ? derivedReady(conditions)
      : {
          type: ClaimConditionType.Ready,
          status: 'False',
          reason: ClaimReason.SubnetGatewayUnusable,
          message: gatewayRefusal,
        };
  return setCondition(conditions, ready, generation, now);
}
