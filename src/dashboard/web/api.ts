/**
 * The page's side of the dashboard API: typed fetches of the JSON views, and the live stream.
 *
 * Guarantees: `subscribe` keeps one EventSource open and calls back on every `change`; the
 * browser reconnects it by itself (the server asks for a 1 s retry), and `onStatus` says whether
 * the page is live, so a restarted fleet is picked up without a reload; every (re)opened stream
 * counts as a change, so what changed while it was away is fetched — the server sends nothing on
 * a stream until something changes after it opened.
 */
export type {
  BindingTrace,
  CellDetail,
  ConditionView,
  EventView,
  HopView,
  InterfaceCopyView,
  OverviewResponse,
  PairDetail,
  PairState,
  PairView,
  RowView,
  SignedRow,
  ThroughputView,
} from '../view-types.ts';

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
  source.onopen = () => {
    onStatus(true);
    // An opened stream may have missed changes before it opened (the first fetch raced it, or
    // the server restarted while it was away): the page refetches what it shows.
    onChange();
  };
  source.onerror = () => onStatus(false);
  return () => source.close();
}
