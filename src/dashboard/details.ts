/**
 * The detail views behind the overview: a pair (its hop chain, its bindings, the claims and
 * interfaces in each cell), a cell (its ServingLocation, contexts, claims, interfaces) and the
 * Warning events.
 *
 * Guarantees: a pair's hops are computed by `traceBinding` of src/trace — the code
 * `netpresence trace binding` runs, over the same kubeconfig contexts — one trace per binding
 * holding the pair, so the page lists exactly the hops, verdicts and order the command prints;
 * claims, interfaces, cells and events come from the informer stores. Events are newest first.
 */
import { traceBinding } from '../trace/binding.ts';
import { hopTitles, type Hop } from '../trace/hop.ts';
import type { PlaneReader } from '../trace/reader.ts';
import { renderVerdict } from '../trace/render.ts';
import { conditionOf, type ConditionView } from './overview.ts';
import type { DashboardSources } from './sources.ts';

type Any = any;

export interface HopView extends Hop {
  title: string;
}

export interface BindingTrace {
  binding: string;
  hops: HopView[];
  verdict: string;
}

export interface InterfaceView {
  cell: string;
  claim: string;
  claimConditions: Record<string, ConditionView | undefined>;
  iface?: string;
  phase?: string;
  mtu?: number;
  addresses: { family: string; address: string; gateway?: string }[];
  dataPlane: Record<string, ConditionView | undefined>;
}

export interface PairDetail {
  hubNamespace: string;
  network: string;
  location: string;
  traces: BindingTrace[];
  interfaces: InterfaceView[];
}

const CLAIM_CONDITIONS = ['Bound', 'Allocated', 'Prepared', 'Programmed', 'Ready'];

export async function pairDetail(
  sources: DashboardSources,
  reader: PlaneReader,
  pair: { hubNamespace: string; network: string; location: string },
): Promise<PairDetail> {
  const holders = (sources.hub.bindings.list(pair.hubNamespace) as Any[])
    .filter((b) => b.spec.network.name === pair.network && b.spec.location.name === pair.location)
    .map((b) => b.metadata.name as string)
    .sort();
  const traces = await Promise.all(
    holders.map(async (name): Promise<BindingTrace> => {
      const hops = await traceBinding(reader, { namespace: pair.hubNamespace, name });
      return {
        binding: name,
        hops: hops.map((hop) => ({ ...hop, title: hopTitles[hop.id] })),
        verdict: renderVerdict(hops),
      };
    }),
  );
  const interfaces: InterfaceView[] = [];
  for (const cell of sources.cellNames()) {
    const stores = sources.cell(cell)!;
    const served = stores.servingLocations.list().some((s) => s.metadata.name === pair.location);
    if (!served) continue;
    for (const claim of stores.claims.list(pair.hubNamespace) as Any[]) {
      if (claim.spec.network.name !== pair.network) continue;
      const ifaceName = claim.status?.networkInterfaceRef?.name;
      const iface = ifaceName ? (stores.interfaces.get(pair.hubNamespace, ifaceName) as Any) : undefined;
      interfaces.push({
        cell,
        claim: claim.metadata.name,
        claimConditions: Object.fromEntries(CLAIM_CONDITIONS.map((t) => [t, conditionOf(claim, t)])),
        iface: iface?.metadata.name,
        phase: iface?.status?.phase,
        mtu: iface?.spec.mtu,
        addresses: (iface?.spec.addresses ?? []).map((a: Any) => ({
          family: a.family,
          address: a.address,
          gateway: a.gateway,
        })),
        dataPlane: { Prepared: conditionOf(iface, 'Prepared'), Programmed: conditionOf(iface, 'Programmed') },
      });
    }
  }
  return { ...pair, traces, interfaces };
}

export interface CellDetail {
  name: string;
  servingLocations: string[];
  contexts: { namespace: string; name: string; network: string; location: string }[];
  claims: { namespace: string; name: string; network: string; ready?: ConditionView }[];
  interfaces: { namespace: string; name: string; phase?: string; claim?: string }[];
}

export function cellDetail(sources: DashboardSources, name: string): CellDetail | undefined {
  const stores = sources.cell(name);
  if (!stores) return undefined;
  return {
    name,
    servingLocations: stores.servingLocations.list().map((s) => s.metadata.name!),
    contexts: (stores.contexts.list() as Any[]).map((c) => ({
      namespace: c.metadata.namespace,
      name: c.metadata.name,
      network: c.spec.network.name,
      location: c.spec.location.name,
    })),
    claims: (stores.claims.list() as Any[]).map((c) => ({
      namespace: c.metadata.namespace,
      name: c.metadata.name,
      network: c.spec.network.name,
      ready: conditionOf(c, 'Ready'),
    })),
    interfaces: (stores.interfaces.list() as Any[]).map((i) => ({
      namespace: i.metadata.namespace,
      name: i.metadata.name,
      phase: i.status?.phase,
      claim: i.spec.claimRef?.name,
    })),
  };
}

export interface EventView {
  plane: string;
  time: string;
  reason: string;
  note: string;
  regarding: { kind?: string; namespace?: string; name?: string };
  controller?: string;
}

/** Warning events of the platform, the hub and every cell, newest first. */
export function warningEvents(sources: DashboardSources, limit = 200): EventView[] {
  const planes: [string, Any[]][] = [
    ['platform', sources.platform.events.list()],
    ['hub', sources.hub.events.list()],
    ...sources.cellNames().map((cell): [string, Any[]] => [cell, sources.cell(cell)!.events.list()]),
  ];
  const events: EventView[] = [];
  for (const [plane, list] of planes)
    for (const event of list) {
      if (event.type !== 'Warning') continue;
      events.push({
        plane,
        time: event.eventTime ?? event.metadata.creationTimestamp ?? '',
        reason: event.reason ?? '',
        note: event.note ?? '',
        regarding: {
          kind: event.regarding?.kind,
          namespace: event.regarding?.namespace,
          name: event.regarding?.name,
        },
        controller: event.reportingController,
      });
    }
  return events.sort((a, b) => b.time.localeCompare(a.time)).slice(0, limit);
}
