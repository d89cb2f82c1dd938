/**
 * The detail views behind the overview: a pair (its hop chain, its bindings, the claims and
 * interfaces in each cell, the interface copies in the project), a cell (its ServingLocation,
 * contexts, claims, interfaces) and the Warning events.
 *
 * Guarantees: a binding's hops are computed by `traceBinding` of src/trace — the code
 * `netpresence trace binding` runs, over the same kubeconfig contexts — so the page lists
 * exactly the hops, verdicts and order the command prints; the pair itself (the bindings holding
 * it, claims, interfaces, copies), cells and events come from the informer stores alone, so they
 * answer at once. Events are those
 * of type Warning in the platform, the hub, every project plane and every cell, newest first,
 * each with a link to the page's view of the object it regards when there is one.
 */
import { LOCATION_LABEL, NETWORK_LABEL } from '../apis/common/labels.ts';
import {
  HELD_BY_LABEL,
  SOURCE_CELL_LABEL,
  SOURCE_NAMESPACE_LABEL,
} from '../apis/networking/v1alpha/interface-copy.ts';
import type { NetworkInterface } from '../apis/networking/v1alpha/network-interface.ts';
import { traceBinding } from '../trace/binding.ts';
import { projectContext } from '../trace/contexts.ts';
import { hopTitles } from '../trace/hop.ts';
import type { PlaneReader } from '../trace/reader.ts';
import { renderVerdict } from '../trace/render.ts';
import { cellHref, overviewHref, pairHref } from './links.ts';
import { conditionOf, routes } from './overview.ts';
import type { DashboardSources, EventObject } from './sources.ts';
import type {
  AddressView,
  BindingTrace,
  CellDetail,
  EventView,
  InterfaceCopyView,
  InterfaceView,
  PairDetail,
} from './view-types.ts';

export type { BindingTrace, CellDetail, EventView, InterfaceView, PairDetail } from './view-types.ts';

const CLAIM_CONDITIONS = ['Bound', 'Allocated', 'Prepared', 'Programmed', 'Ready'];
const COPY_CONDITIONS = ['Allocated', 'Prepared', 'Programmed'];

const addressesOf = (iface: NetworkInterface | undefined): AddressView[] =>
  (iface?.spec.addresses ?? []).map((a) => ({ family: a.family, address: a.address, gateway: a.gateway }));

/**
 * A binding's hops, exactly as `netpresence trace binding` computes them (API reads in every
 * plane on the way: the slow part of a pair, so the page asks for it per binding).
 */
export async function bindingTrace(
  reader: PlaneReader,
  binding: { namespace: string; name: string },
): Promise<BindingTrace> {
  const hops = await traceBinding(reader, binding);
  return {
    binding: binding.name,
    hops: hops.map((hop) => ({ ...hop, title: hopTitles[hop.id] })),
    verdict: renderVerdict(hops),
  };
}

/** A pair from the stores alone: its bindings, claims and interfaces, and the project's copies. */
export function pairDetail(
  sources: DashboardSources,
  pair: { hubNamespace: string; network: string; location: string },
): PairDetail {
  const bindings = sources.hub.bindings
    .list(pair.hubNamespace)
    .filter((b) => b.spec.network.name === pair.network && b.spec.location.name === pair.location)
    .map((b) => b.metadata.name ?? '')
    .sort();
  const interfaces: InterfaceView[] = [];
  for (const cell of sources.cellNames()) {
    const stores = sources.cell(cell);
    if (!stores?.servingLocations.list().some((s) => s.metadata.name === pair.location)) continue;
    for (const claim of stores.claims.list(pair.hubNamespace)) {
      if (claim.spec.network.name !== pair.network) continue;
      const ifaceName = claim.status?.networkInterfaceRef?.name;
      const iface = ifaceName ? stores.interfaces.get(pair.hubNamespace, ifaceName) : undefined;
      interfaces.push({
        cell,
        claim: claim.metadata.name ?? '',
        claimConditions: Object.fromEntries(CLAIM_CONDITIONS.map((t) => [t, conditionOf(claim, t)])),
        iface: iface?.metadata.name,
        phase: iface?.status?.phase,
        mtu: iface?.spec.mtu,
        addresses: addressesOf(iface),
        dataPlane: { Prepared: conditionOf(iface, 'Prepared'), Programmed: conditionOf(iface, 'Programmed') },
      });
    }
  }
  const route = routes(sources).get(pair.hubNamespace);
  const copies: InterfaceCopyView[] = [];
  if (route)
    for (const copy of sources.project(route.project)?.interfaces.list(route.namespace) ?? []) {
      const labels = copy.metadata.labels ?? {};
      if (labels[SOURCE_NAMESPACE_LABEL] !== pair.hubNamespace) continue;
      if (labels[NETWORK_LABEL] !== pair.network || labels[LOCATION_LABEL] !== pair.location) continue;
      copies.push({
        project: route.project,
        namespace: route.namespace,
        name: copy.metadata.name ?? '',
        cell: labels[SOURCE_CELL_LABEL] ?? '',
        heldBy: labels[HELD_BY_LABEL],
        phase: copy.status?.phase,
        addresses: addressesOf(copy),
        conditions: Object.fromEntries(COPY_CONDITIONS.map((t) => [t, conditionOf(copy, t)])),
      });
    }
  copies.sort((a, b) => a.name.localeCompare(b.name));
  return { ...pair, project: route?.project, namespace: route?.namespace, bindings, interfaces, copies };
}

export function cellDetail(sources: DashboardSources, name: string): CellDetail | undefined {
  const stores = sources.cell(name);
  if (!stores) return undefined;
  return {
    name,
    servingLocations: stores.servingLocations.list().map((s) => s.metadata.name ?? ''),
    contexts: stores.contexts.list().map((c) => ({
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
      network: c.spec.network.name,
      location: c.spec.location.name,
    })),
    claims: stores.claims.list().map((c) => ({
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
      network: c.spec.network.name,
      ready: conditionOf(c, 'Ready'),
    })),
    interfaces: stores.interfaces.list().map((i) => ({
      namespace: i.metadata.namespace ?? '',
      name: i.metadata.name ?? '',
      phase: i.status?.phase,
      claim: i.spec.claimRef?.name,
    })),
  };
}

/** A plane whose Warnings the events view lists, and how to link an event to its object. */
interface EventPlane {
  plane: string;
  events: EventObject[];
  href: (regarding: NonNullable<EventObject['regarding']>) => string | undefined;
}

/** The plane's events, and where the page shows what each regards. */
function eventPlanes(sources: DashboardSources): EventPlane[] {
  const hubNamespaceOf = new Map<string, string>();
  for (const [hubNs, route] of routes(sources))
    hubNamespaceOf.set(`${route.project}\u0000${route.namespace}`, hubNs);
  const planes: EventPlane[] = [
    {
      plane: 'platform',
      events: sources.platform.events.list(),
      href: ({ kind, name }) => (kind === 'Location' && name ? overviewHref({ location: name }) : undefined),
    },
    {
      plane: 'hub',
      events: sources.hub.events.list(),
      href: ({ kind, namespace, name }) => {
        if (!namespace || !name) return undefined;
        const held =
          kind === 'NetworkBinding'
            ? sources.hub.bindings.get(namespace, name)
            : kind === 'NetworkContext'
              ? sources.hub.contexts.get(namespace, name)
              : undefined;
        return held ? pairHref(namespace, held.spec.network.name, held.spec.location.name) : undefined;
      },
    },
  ];
  for (const project of sources.projectNames()) {
    const stores = sources.project(project);
    if (!stores) continue;
    planes.push({
      plane: projectContext(project),
      events: stores.events.list(),
      href: ({ kind, namespace, name }) => {
        if (!namespace || !name) return undefined;
        if (kind === 'Network') return overviewHref({ project, network: name });
        const hubNs = hubNamespaceOf.get(`${project}\u0000${namespace}`);
        const context = kind === 'NetworkContext' ? stores.contexts.get(namespace, name) : undefined;
        if (hubNs && context) return pairHref(hubNs, context.spec.network.name, context.spec.location.name);
        const copy = kind === 'NetworkInterface' ? stores.interfaces.get(namespace, name) : undefined;
        const labels = copy?.metadata.labels ?? {};
        if (hubNs && labels[NETWORK_LABEL] && labels[LOCATION_LABEL])
          return pairHref(hubNs, labels[NETWORK_LABEL], labels[LOCATION_LABEL]);
        return overviewHref({ project });
      },
    });
  }
  for (const cell of sources.cellNames())
    planes.push({
      plane: cell,
      events: sources.cell(cell)?.events.list() ?? [],
      href: () => cellHref(cell),
    });
  return planes;
}

/** Warning events of the platform, the hub, every project plane and every cell, newest first. */
export function warningEvents(sources: DashboardSources, limit = 200): EventView[] {
  const events: EventView[] = [];
  for (const { plane, events: list, href } of eventPlanes(sources))
    for (const event of list) {
      if (event.type !== 'Warning') continue;
      const regarding = {
        kind: event.regarding?.kind,
        namespace: event.regarding?.namespace,
        name: event.regarding?.name,
      };
      events.push({
        plane,
        time: event.eventTime ?? event.metadata.creationTimestamp ?? '',
        reason: event.reason ?? '',
        note: event.note ?? '',
        regarding,
        controller: event.reportingController,
        href: href(regarding),
      });
    }
  return events.sort((a, b) => b.time.localeCompare(a.time)).slice(0, limit);
}
