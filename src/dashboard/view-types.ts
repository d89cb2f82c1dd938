/**
 * The dashboard's views as they travel as JSON from its server to its page: the one declaration
 * both sides import (the server builds these, the page renders them).
 *
 * Guarantees: dependency-free — no import, no value, only types — so the page (type-checked with
 * DOM and no Node types) can import it without pulling in any server module.
 */

export type PairState = 'ready' | 'refused' | 'waiting' | 'unbound';

export interface ConditionView {
  status: string;
  reason: string;
  message: string;
}

/** A cell serving a pair's location: does it hold the context's copy, and its claims. */
export interface CellPresence {
  cell: string;
  copy: boolean;
  claims: number;
  bound: number;
  refused: number;
}

export interface PairView {
  location: string;
  state: PairState;
  /** The state in words (never colour alone). */
  words: string;
  hubNamespace?: string;
  bindings: { ready: number; total: number; names: string[]; worst?: ConditionView };
  context?: { name: string; ready?: ConditionView; cidr?: string };
  hubCopy: boolean;
  policy: boolean;
  cells: CellPresence[];
}

export interface RowView {
  project: string;
  namespace: string;
  network: string;
  pairs: PairView[];
}

export interface Totals {
  bindingsReady: number;
  bindings: number;
  claimsBound: number;
  claims: number;
  refusals: Record<string, number>;
}

export interface OverviewQuery {
  project?: string;
  network?: string;
  location?: string;
  state?: string;
  search?: string;
  page?: number;
  pageSize?: number;
}

/**
 * A row as a page of the overview carries it: `sig` changes whenever anything in the row does,
 * so the page re-renders only rows whose `sig` (with the columns shown) it has not drawn.
 */
export interface SignedRow extends RowView {
  sig: string;
}

/** One page of the rows a query selects. */
export interface OverviewPage {
  locations: string[];
  rows: SignedRow[];
  totals: Totals;
  matching: number;
  page: number;
  pages: number;
}

/** What `GET /api/overview` answers: a page, the change it reflects and the filter choices. */
export interface OverviewResponse extends OverviewPage {
  version: number;
  projects: string[];
  networks: string[];
}

/** A hop as `netpresence trace` computes it (src/trace/hop.ts), with the title it prints. */
export interface HopView {
  id: string;
  title: string;
  plane: string;
  object: string;
  state: 'ok' | 'missing' | 'refusing' | 'waiting' | 'unreachable' | 'unchecked';
  condition?: { type: string; status: string; reason: string; message: string };
  note?: string;
  advice?: string;
  causes?: string[];
}

export interface BindingTrace {
  binding: string;
  hops: HopView[];
  verdict: string;
}

export interface AddressView {
  family: string;
  address: string;
  gateway?: string;
}

/** A claim in a cell serving the pair's location, and the interface it holds. */
export interface InterfaceView {
  cell: string;
  claim: string;
  claimConditions: Record<string, ConditionView | undefined>;
  iface?: string;
  phase?: string;
  mtu?: number;
  addresses: AddressView[];
  dataPlane: Record<string, ConditionView | undefined>;
}

/** A NetworkInterface copy in the project plane (controllers.md §13.2): where the network is used. */
export interface InterfaceCopyView {
  project: string;
  namespace: string;
  name: string;
  cell: string;
  /** The claim holding the interface; absent while none holds it. */
  heldBy?: string;
  phase?: string;
  addresses: AddressView[];
  /** `Allocated`, `Prepared`, `Programmed` as the copy shows them. */
  conditions: Record<string, ConditionView | undefined>;
}

export interface PairDetail {
  hubNamespace: string;
  network: string;
  location: string;
  /** The project and namespace the hub namespace routes to, when it routes. */
  project?: string;
  namespace?: string;
  /** The bindings holding the pair, by name; each one's trace is `GET /api/trace`. */
  bindings: string[];
  interfaces: InterfaceView[];
  copies: InterfaceCopyView[];
}

export interface CellDetail {
  name: string;
  servingLocations: string[];
  contexts: { namespace: string; name: string; network: string; location: string }[];
  claims: { namespace: string; name: string; network: string; ready?: ConditionView }[];
  interfaces: { namespace: string; name: string; phase?: string; claim?: string }[];
}

export interface EventView {
  /** The plane's kubeconfig context: `platform`, `hub`, `project-<p>` or a cell. */
  plane: string;
  time: string;
  reason: string;
  note: string;
  regarding: { kind?: string; namespace?: string; name?: string };
  controller?: string;
  /** The page's view of the object regarded (a pair, a cell, the filtered overview), if any. */
  href?: string;
}

export interface ThroughputView {
  targets: { url: string; error?: string }[];
  times: number[];
  bindingsReady: number[];
  claimsBound: number[];
  /** Cumulative: how many bindings turned Ready within `le[i]` seconds (+Inf left out). */
  latency: { le: number[]; count: number[]; total: number };
}
