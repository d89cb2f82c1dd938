/**
 * Hops: one record per object a network passes through on its way from a binding to an
 * interface (DESIGN.md §1), as a trace found it.
 *
 * Guarantees: a hop is `ok` only when the object is present and the part of it netpresence is
 * responsible for is done; conditions the data plane owns (a Subnet's or an interface's
 * `Programmed`, `Prepared`) are shown in `note` and never make a hop fail. A hop that could not
 * be judged because an earlier one failed is `unchecked`, never `ok`. `causes` lists, for an
 * object that reports a refusal, the hops its reason points at, in the order they are looked at.
 */
import type { Condition } from '../apis/common/condition.ts';

export type HopId =
  | 'binding'
  | 'hub-namespace'
  | 'project'
  | 'project-namespace'
  | 'location-binding'
  | 'network'
  | 'project-context'
  | 'project-subnet'
  | 'hub-context'
  | 'hub-subnet'
  | 'policy'
  | 'cells'
  | 'cluster'
  | 'identity'
  | 'cell-namespace'
  | 'cell-context'
  | 'cell-subnet'
  | 'addresses'
  | 'interface'
  | 'claim'
  | 'interface-hub-copy'
  | 'interface-project-copy';

export type HopState = 'ok' | 'missing' | 'refusing' | 'waiting' | 'unreachable' | 'unchecked';

export interface Hop {
  id: HopId;
  /** The plane's kubeconfig context. */
  plane: string;
  /** What was looked at: `NetworkContext default/vpc-us-central-1`. */
  object: string;
  state: HopState;
  /** The condition that judges the object, as found. */
  condition?: Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;
  /** What else was found: a refusal's words, a data-plane condition, a cluster left out. */
  note?: string;
  /** What to do when this hop is the first one failing. */
  advice?: string;
  /** For a refusing or waiting object: the hops its reason points at. */
  causes?: HopId[];
}

/** The hop names a user reads, in place of the ids. */
export const hopTitles: Record<HopId, string> = {
  binding: 'binding',
  'hub-namespace': 'hub namespace',
  project: 'project',
  'project-namespace': 'project namespace',
  'location-binding': 'location binding',
  network: 'network',
  'project-context': 'project context',
  'project-subnet': 'project subnet',
  'hub-context': 'hub copy',
  'hub-subnet': 'hub copy',
  policy: 'policy',
  cells: 'cells',
  cluster: 'cluster',
  identity: 'cell location',
  'cell-namespace': 'cell namespace',
  'cell-context': 'cell copy',
  'cell-subnet': 'cell copy',
  addresses: 'addresses',
  interface: 'interface',
  claim: 'claim',
  'interface-hub-copy': 'hub copy',
  'interface-project-copy': 'project copy',
};

export function conditionOf(
  object: { status?: { conditions?: Condition[] } } | undefined,
  type: string,
): Condition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

export function isTrue(condition: Condition | undefined): boolean {
  return condition?.status === 'True';
}

/** `False` with a reason is a refusal; `Unknown` (or absent) is waiting for a controller. */
export function stateOf(condition: Condition | undefined): HopState {
  if (condition?.status === 'True') return 'ok';
  return condition?.status === 'False' ? 'refusing' : 'waiting';
}

export function shown(condition: Condition | undefined): Hop['condition'] {
  if (!condition) return undefined;
  const { type, status, reason, message } = condition;
  return { type, status, reason, message };
}

/** `<namespace>/<name>` or `<name>`. */
export function qualified(name: string, namespace?: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A hop that was not looked at because `why`. */
export function unchecked(id: HopId, plane: string, object: string, why: string): Hop {
  return { id, plane, object, state: 'unchecked', note: why };
}

/** A network in a location, as a hub namespace declares it. */
export interface Pair {
  hubNamespace: string;
  network: string;
  location: string;
}

/** The project namespace a hub namespace stands for. */
export interface Route {
  project: string;
  projectNamespace: string;
}
