/**
 * The page's side of the dashboard API: typed fetches of the JSON views, and the live stream.
 *
 * Guarantees: `subscribe` keeps one EventSource open and calls back on every `change`; the
 * browser reconnects it by itself (the server asks for a 1 s retry), and `onStatus` says whether
 * the page is live, so a restarted fleet is picked up without a reload; a reopened stream counts
 * as a change, so what changed while it was away is fetched.
 */
export type PairState = 'ready' | 'refused' | 'waiting' | 'unbound';

export interface ConditionView {
  status: string;
  reason: string;
  message: string;
}

export interface PairView {
  location: string;
  state: PairState;
  words: string;
  hubNamespace?: string;
  bindings: { ready: number; total: number; names: string[]; worst?: ConditionView };
  context?: { name: string; ready?: ConditionView; cidr?: string };
  hubCopy: boolean;
  policy: boolean;
  cells: { cell: string; copy: boolean; claims: number; bound: number; refused: number }[];
}

export interface RowView {
  project: string;
  namespace: string;
  network: string;
  pairs: PairView[];
}

export interface OverviewPage {
  version: number;
  locations: string[];
  rows: RowView[];
  totals: {
    bindingsReady: number;
    bindings: number;
    claimsBound: number;
    claims: number;
    refusals: Record<string, number>;
  };
  matching: number;
  page: number;
  pages: number;
  projects: string[];
  networks: string[];
}

export interface HopView {
  id: string;
  title: string;
  plane: string;
  object: string;
  state: string;
  condition?: ConditionView & { type: string };
  note?: string;
  advice?: string;
}

export interface PairDetail {
  hubNamespace: string;
  network: string;
  location: string;
  traces: { binding: string; hops: HopView[]; verdict: string }[];
  interfaces: {
    cell: string;
    claim: string;
    claimConditions: Record<string, ConditionView | undefined>;
    iface?: string;
    phase?: string;
    mtu?: number;
    addresses: { family: string; address: string; gateway?: string }[];
    dataPlane: Record<string, ConditionView | undefined>;
  }[];
}

export interface CellDetail {
  name: string;
  servingLocations: string[];
  contexts: { namespace: string; name: string; network: string; location: string }[];
  claims: { namespace: string; name: string; network: string; ready?: ConditionView }[];
  interfaces: { namespace: string; name: string; phase?: string; claim?: string }[];
}

export interface EventView {
  plane: string;
  time: string;
  reason: string;
  note: string;
  regarding: { kind?: string; namespace?: string; name?: string };
  controller?: string;
}

export interface ThroughputView {
  targets: { url: string; error?: string }[];
  times: number[];
  bindingsReady: number[];
  claimsBound: number[];
  latency: { le: number[]; count: number[]; total: number };
}

export async function getJson<T>(
  path: string,
  params: Record<string, string | number | undefined> = {},
): Promise<T> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') query.set(key, String(value));
  const response = await fetch(`${path}${query.size > 0 ? `?${query}` : ''}`, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export function subscribe(onChange: () => void, onStatus: (live: boolean) => void): () => void {
  const source = new EventSource('/api/stream');
  source.addEventListener('change', () => onChange());
  let opened = false;
  source.onopen = () => {
    onStatus(true);
    // A reopened stream may have missed changes while it was away (the server restarted): refetch.
    if (opened) onChange();
    opened = true;
  };
  source.onerror = () => onStatus(false);
  return () => source.close();
}
