/**
 * The overview: one row per (project, namespace, network), one column per location, and in each
 * cell of the grid the pair's state in words — built from the dashboard's informer stores.
 *
 * Guarantees: `buildOverview` reads stores only (no API call) and is a pure function of them;
 * every pair has a `state` (ready, refused, waiting, unbound) and `words` saying it, so colour is
 * never the only signal; rows are sorted by project, namespace, network and columns by name.
 * Locations are the platform's Locations plus any a binding names (`mars-1`), so a binding for a
 * location nobody serves still has a column to show its refusal in.
 */
import { CLUSTER_LOCATION_LABEL } from '../apis/common/labels.ts';
import {
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
  projectOfUpstreamClusterName,
} from '../apis/common/upstream.ts';
import type { NetworkBinding } from '../apis/networking/v1alpha/network-binding.ts';
import type { NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import type { DashboardSources } from './sources.ts';
import type {
  CellPresence,
  ConditionView,
  OverviewPage,
  OverviewQuery,
  PairState,
  PairView,
  RowView,
  SignedRow,
  Totals,
} from './view-types.ts';

export interface Overview {
  locations: string[];
  rows: RowView[];
  totals: Totals;
}

interface WithConditions {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

export function conditionOf(object: WithConditions | undefined, type: string): ConditionView | undefined {
  const found = object?.status?.conditions?.find((c) => c.type === type);
  return found
    ? { status: found.status, reason: found.reason ?? '', message: found.message ?? '' }
    : undefined;
}

const rowKey = (project: string, namespace: string, network: string) =>
  `${project}\u0000${namespace}\u0000${network}`;

/** hub namespace → (project, project namespace), from the upstream labels. */
export function routes(sources: DashboardSources): Map<string, { project: string; namespace: string }> {
  const found = new Map<string, { project: string; namespace: string }>();
  for (const ns of sources.hub.namespaces.list()) {
    const labels = ns.metadata.labels ?? {};
    const project = projectOfUpstreamClusterName(labels[UPSTREAM_CLUSTER_NAME_LABEL] ?? '');
    const namespace = labels[UPSTREAM_NAMESPACE_LABEL];
    if (project && namespace) found.set(ns.metadata.name!, { project, namespace });
  }
  return found;
}

function worstOf(conditions: ConditionView[]): ConditionView | undefined {
  return conditions.find((c) => c.status === 'False') ?? conditions.find((c) => c.status !== 'True');
}

function stateOf(pair: Omit<PairView, 'state' | 'words'>): { state: PairState; words: string } {
  const { bindings } = pair;
  if (bindings.total === 0) return { state: 'unbound', words: 'not bound' };
  if (bindings.worst?.status === 'False')
    return { state: 'refused', words: `refused: ${bindings.worst.reason}` };
  if (bindings.worst) return { state: 'waiting', words: `waiting: ${bindings.worst.reason || 'Pending'}` };
  return { state: 'ready', words: 'Ready' };
}

export function buildOverview(sources: DashboardSources): Overview {
  const hubRoutes = routes(sources);
  const hubNamespaceOf = new Map<string, string>();
  for (const [hubNs, route] of hubRoutes)
    hubNamespaceOf.set(`${route.project}\u0000${route.namespace}`, hubNs);

  const rows = new Map<string, RowView>();
  const row = (project: string, namespace: string, network: string): RowView => {
    const key = rowKey(project, namespace, network);
    let found = rows.get(key);
    if (!found) rows.set(key, (found = { project, namespace, network, pairs: [] }));
    return found;
  };
  for (const project of sources.projectNames())
    for (const network of sources.project(project)?.networks.list() ?? [])
      row(project, network.metadata.namespace!, network.metadata.name!);

  const locations = new Set(sources.platform.locations.list().map((l) => l.metadata.name!));
  const bindingsOf = new Map<string, NetworkBinding[]>();
  const totals: Totals = { bindingsReady: 0, bindings: 0, claimsBound: 0, claims: 0, refusals: {} };
  const refusal = (reason: string) => (totals.refusals[reason] = (totals.refusals[reason] ?? 0) + 1);
  for (const binding of sources.hub.bindings.list()) {
    const hubNs = binding.metadata.namespace ?? '';
    const route = hubRoutes.get(hubNs);
    const project = route?.project ?? '(unresolved)';
    const namespace = binding.spec.network.namespace ?? route?.namespace ?? hubNs;
    const location = binding.spec.location.name;
    locations.add(location);
    const key = `${rowKey(project, namespace, binding.spec.network.name)}\u0000${location}`;
    row(project, namespace, binding.spec.network.name);
    const held = bindingsOf.get(key);
    if (held) held.push(binding);
    else bindingsOf.set(key, [binding]);
    totals.bindings++;
    const ready = conditionOf(binding, 'Ready');
    if (ready?.status === 'True') totals.bindingsReady++;
    else if (ready?.status === 'False') refusal(ready.reason);
  }

  const policies = new Set(sources.hub.policies.list().map((p) => p.metadata.name!));
  const cellsAt = new Map<string, string[]>();
  for (const cluster of sources.hub.clusters.list()) {
    const location = cluster.metadata.labels?.[CLUSTER_LOCATION_LABEL];
    if (location) cellsAt.set(location, [...(cellsAt.get(location) ?? []), cluster.metadata.name!]);
  }
  // One pass over each cell's claims: counts per (hub namespace, network), and the totals.
  const claimCounts = new Map<string, Map<string, { claims: number; bound: number; refused: number }>>();
  for (const cell of sources.cellNames()) {
    const counts = new Map<string, { claims: number; bound: number; refused: number }>();
    claimCounts.set(cell, counts);
    for (const claim of sources.cell(cell)?.claims.list() ?? []) {
      const key = `${claim.metadata.namespace}\u0000${claim.spec.network.name}`;
      let count = counts.get(key);
      if (!count) counts.set(key, (count = { claims: 0, bound: 0, refused: 0 }));
      const ready = conditionOf(claim, 'Ready');
      count.claims++;
      totals.claims++;
      if (conditionOf(claim, 'Bound')?.status === 'True') {
        count.bound++;
        totals.claimsBound++;
      }
      if (ready?.status === 'False') {
        count.refused++;
        refusal(ready.reason);
      }
    }
  }

  const columns = [...locations].sort();
  // One pass over each project's contexts: by (namespace, network, location).
  const contextsOf = new Map<string, NetworkContext>();
  for (const name of sources.projectNames())
    for (const context of sources.project(name)?.contexts.list() ?? [])
      contextsOf.set(
        `${rowKey(name, context.metadata.namespace ?? '', context.spec.network.name)}\u0000${context.spec.location.name}`,
        context,
      );
  for (const view of rows.values()) {
    const project = sources.project(view.project);
    const hubNs = hubNamespaceOf.get(`${view.project}\u0000${view.namespace}`);
    for (const location of columns) {
      const pairKey = `${rowKey(view.project, view.namespace, view.network)}\u0000${location}`;
      const holders = bindingsOf.get(pairKey) ?? [];
      const context = contextsOf.get(pairKey);
      const contextName = context?.metadata.name;
      const subnetName = context?.status?.ipam?.ipv6SubnetRef?.name;
      const subnet = subnetName ? project?.subnets.get(view.namespace, subnetName) : undefined;
      const readies = holders.map(
        (b) => conditionOf(b, 'Ready') ?? { status: 'Unknown', reason: 'Pending', message: '' },
      );
      const cells = (cellsAt.get(location) ?? []).map((cell): CellPresence => {
        const stores = sources.cell(cell);
        const counts = hubNs ? claimCounts.get(cell)?.get(`${hubNs}\u0000${view.network}`) : undefined;
        return {
          cell,
          copy: !!(hubNs && contextName && stores?.contexts.get(hubNs, contextName)),
          claims: counts?.claims ?? 0,
          bound: counts?.bound ?? 0,
          refused: counts?.refused ?? 0,
        };
      });
      const pair: Omit<PairView, 'state' | 'words'> = {
        location,
        hubNamespace: hubNs,
        bindings: {
          ready: readies.filter((c) => c.status === 'True').length,
          total: holders.length,
          names: holders.map((b) => b.metadata.name!),
          worst: worstOf(readies),
        },
        context: contextName
          ? {
              name: contextName,
              ready: conditionOf(context, 'Ready'),
              cidr: subnet ? `${subnet.spec.startAddress}/${subnet.spec.prefixLength}` : undefined,
            }
          : undefined,
        hubCopy: !!(hubNs && contextName && sources.hub.contexts.get(hubNs, contextName)),
        policy: policies.has(`location-${location}`),
        cells,
      };
      view.pairs.push({ ...pair, ...stateOf(pair) });
    }
  }
  const sorted = [...rows.values()].sort(
    (a, b) =>
      a.project.localeCompare(b.project) ||
      a.namespace.localeCompare(b.namespace) ||
      a.network.localeCompare(b.network),
  );
  return { locations: columns, rows: sorted, totals };
}

interface SearchKey {
  /** `project namespace network`, lowercase. */
  name: string;
  /** The name, then every binding name of every pair, lowercase, NUL-separated. */
  all: string;
}

/** Per overview (built once per change), each row's search keys, computed on the first query. */
const searchKeys = new WeakMap<Overview, SearchKey[]>();

function searchKeysOf(overview: Overview): SearchKey[] {
  let keys = searchKeys.get(overview);
  if (!keys) {
    keys = overview.rows.map((r) => {
      const name = `${r.project} ${r.namespace} ${r.network}`.toLowerCase();
      const bindings = r.pairs.flatMap((p) => p.bindings.names).join('\u0000');
      return { name, all: `${name}\u0000${bindings.toLowerCase()}` };
    });
    searchKeys.set(overview, keys);
  }
  return keys;
}

/** Per row of an overview, its signature: FNV-1a (32 bit) of its JSON, computed when first paged. */
const signatures = new WeakMap<RowView, string>();

export function signatureOf(row: RowView): string {
  let sig = signatures.get(row);
  if (sig === undefined) {
    const text = JSON.stringify(row);
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    sig = `${(hash >>> 0).toString(36)}.${text.length.toString(36)}`;
    signatures.set(row, sig);
  }
  return sig;
}

/**
 * The rows (and columns) a query selects, one page of them. A search matches a row whose
 * `project namespace network` or one of whose binding names (in the selected location, when
 * one is) contains it, ignoring case.
 */
export function queryOverview(overview: Overview, query: OverviewQuery): OverviewPage {
  const locations = query.location
    ? overview.locations.filter((l) => l === query.location)
    : overview.locations;
  const search = query.search?.toLowerCase();
  const keys = searchKeysOf(overview);
  const matches: { row: RowView; of: RowView }[] = [];
  // One pass, no intermediate arrays; the search reads the row's precomputed lowercase key.
  for (let i = 0; i < overview.rows.length; i++) {
    const of = overview.rows[i];
    let row = of;
    if (query.project && row.project !== query.project) continue;
    if (query.network && row.network !== query.network) continue;
    if (query.location) row = { ...row, pairs: row.pairs.filter((p) => p.location === query.location) };
    if (query.state && !row.pairs.some((p) => p.state === query.state)) continue;
    if (search) {
      const found = query.location
        ? keys[i].name.includes(search) ||
          row.pairs.some((p) => p.bindings.names.some((n) => n.toLowerCase().includes(search)))
        : keys[i].all.includes(search);
      if (!found) continue;
    }
    matches.push({ row, of });
  }
  const rows = matches;
  const pageSize = Math.max(1, Math.min(query.pageSize ?? 50, 500));
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const page = Math.min(Math.max(1, query.page ?? 1), pages);
  return {
    locations,
    rows: rows
      .slice((page - 1) * pageSize, page * pageSize)
      .map(({ row, of }): SignedRow => ({ ...row, sig: signatureOf(of) })),
    totals: overview.totals,
    matching: rows.length,
    page,
    pages,
  };
}
