/**
 * The fleet's invariants at quiescence, read through the real API of every plane: one checker,
 * shared by the chaos test (test/chaos, bench/chaos) and the model-based test.
 *
 * Guarantees: `checkInvariants` only reads; it returns every violation it finds, each a sentence
 * naming the objects involved, and an empty list when the fleet is consistent. What it checks:
 * 1. a LocationBinding exists in a project iff the Project is Ready, the Location Ready and
 *    networking Available there (the projector's invariant);
 * 2. for every pair (project namespace, network, location) with a live binding whose Network
 *    exists and whose location is available: exactly one Ready context, every binding of the pair
 *    Ready and pointing at it — unless its context is still deleting because an interface on the
 *    network holds its range (scenario 107), when the pair waits;
 * 3. no live context presence made without a live binding of its pair;
 * 4. one Subnet per IPv6 context, none without its context;
 * 5. hub copies equal their project sources, none orphaned, every live source copied;
 * 6. each cell serving a location holds exactly that location's contexts, no other cell holds
 *    them (a copy deleting while an interface still uses it excepted); a cell whose Cluster is
 *    not Ready is not judged here or in 8: it keeps what it held until it is Ready again
 *    (propagation.md §5.6, §7.2), stale copies included;
 * 7. no two IPClaims or IPAllocations of one pool overlap, every allocation inside its pool, no
 *    IPAllocation without its IPClaim, no interface IPClaim without a live claim or an interface
 *    holding it;
 * 8. every live claim whose context is present and carries its families is Bound, to an
 *    interface whose every address is held by its IPClaim in IPAM (unless an interface of its name
 *    exists that it may not adopt: that refusal is the claim's to report);
 * 9. no object deleting without finalizers.
 * Caveat: it reads plane after plane, not one snapshot; call it when nothing moves any more (or
 * through `settledInvariants`, which waits for two checks in a row to find nothing).
 */
import type { KubeObject, ResourceClient, ResourceId } from '../../src/client/types.ts';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import {
  projectOfUpstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../src/apis/common/upstream.ts';
import { CELL_LABEL, legacyAddressClaimName } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { allocationOwner, heldAddresses } from '../../src/controllers/cell/address-requests.ts';
import { adoptionRefusal } from '../../src/controllers/cell/claim-bind.ts';
import { contains, overlaps, parseCidr } from '../../src/ipam/cidr.ts';
import { addressClaimName } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { IP_ALLOCATIONS } from './cell-fixtures.ts';
import { KINDS } from './fleet.ts';
import { SERVICE_AVAILABILITIES } from './project-fixtures.ts';

type Any = any;

export interface FleetReader {
  client<T extends KubeObject = KubeObject>(context: string, id: ResourceId): ResourceClient<T>;
}

const NETWORKING_SERVICE = 'networking.datumapis.com';

const condition = (object: Any, type: string) =>
  (object?.status?.conditions ?? []).find((c: Any) => c.type === type);
const isTrue = (object: Any, type: string) => condition(object, type)?.status === 'True';
const live = (object: Any) => !object.metadata.deletionTimestamp;
const nameOf = (object: Any): string => object.metadata.name;

async function list(
  reader: FleetReader,
  context: string,
  id: ResourceId,
  namespace?: string,
): Promise<Any[]> {
  return (await reader.client<Any>(context, id).list(namespace === undefined ? {} : { namespace })).items;
}

/** Every plane's objects a check reads, read once. */
interface Snapshot {
  projects: Any[];
  locations: Any[];
  availabilities: Any[];
  clusters: Any[];
  hubNamespaces: Any[];
  bindings: Any[];
  hubContexts: Any[];
  hubSubnets: Any[];
  project: Map<string, ProjectState>;
  cell: Map<string, CellState>;
}

interface ProjectState {
  locationBindings: Any[];
  networks: Any[];
  contexts: Any[];
  subnets: Any[];
  ipClaims: Any[];
  ipAllocations: Any[];
  ipPools: Any[];
}

interface CellState {
  contexts: Any[];
  claims: Any[];
  interfaces: Any[];
}

async function snapshot(reader: FleetReader, cells: readonly string[]): Promise<Snapshot> {
  const projects = await list(reader, 'platform', KINDS.projects);
  const project = new Map<string, ProjectState>();
  for (const p of projects) {
    const context = `project-${nameOf(p)}`;
    const read = async (id: ResourceId) => list(reader, context, id).catch(() => []);
    project.set(nameOf(p), {
      locationBindings: await read(KINDS.locationBindings),
      networks: await read(KINDS.networks),
      contexts: await read(KINDS.networkContexts),
      subnets: await read(KINDS.subnets),
      ipClaims: await read(KINDS.ipClaims),
      ipAllocations: await read(IP_ALLOCATIONS),
      ipPools: await read(KINDS.ipPools),
    });
  }
  const cell = new Map<string, CellState>();
  for (const name of cells)
    cell.set(name, {
      contexts: await list(reader, name, KINDS.networkContexts),
      claims: await list(reader, name, KINDS.claims),
      interfaces: await list(reader, name, KINDS.interfaces),
    });
  return {
    projects,
    locations: await list(reader, 'platform', KINDS.locations),
    availabilities: await list(reader, 'platform', SERVICE_AVAILABILITIES),
    clusters: await list(reader, 'hub', KINDS.clusters),
    hubNamespaces: await list(reader, 'hub', KINDS.namespaces),
    bindings: await list(reader, 'hub', KINDS.networkBindings),
    hubContexts: await list(reader, 'hub', KINDS.networkContexts),
    hubSubnets: await list(reader, 'hub', KINDS.subnets),
    project,
    cell,
  };
}

/** The project and project namespace a hub namespace stands for, from its upstream labels. */
function routeOf(s: Snapshot, hubNamespace: string): { project: string; namespace: string } | undefined {
  const ns = s.hubNamespaces.find((n) => nameOf(n) === hubNamespace);
  const project = projectOfUpstreamClusterName(ns?.metadata.labels?.[UPSTREAM_CLUSTER_NAME_LABEL] ?? '');
  const namespace = ns?.metadata.labels?.[UPSTREAM_NAMESPACE_LABEL];
  return project && namespace ? { project, namespace } : undefined;
}

function hubNamespaceOf(s: Snapshot, project: string, namespace: string): string | undefined {
  return s.hubNamespaces.map(nameOf).find((hub) => {
    const route = routeOf(s, hub);
    return route?.project === project && route.namespace === namespace;
  });
}

function locationAvailable(s: Snapshot, project: Any, location: string): boolean {
  const place = s.locations.find((l) => nameOf(l) === location);
  const available = s.availabilities.some(
    (a) =>
      a.spec?.serviceRef?.name === NETWORKING_SERVICE &&
      a.spec?.locationRef?.name === location &&
      isTrue(a, 'Available'),
  );
  return isTrue(project, 'Ready') && place !== undefined && isTrue(place, 'Ready') && available;
}

function checkLocationBindings(s: Snapshot, out: string[]): void {
  for (const p of s.projects) {
    const state = s.project.get(nameOf(p))!;
    for (const location of s.locations.map(nameOf)) {
      const exists = state.locationBindings.some((b) => nameOf(b) === location);
      if (exists !== locationAvailable(s, p, location))
        out.push(
          `project ${nameOf(p)}: LocationBinding ${location} ${exists ? 'exists but should not' : 'is missing'}`,
        );
    }
  }
}

function checkPairs(s: Snapshot, out: string[]): void {
  const pairs = new Map<string, Any[]>();
  for (const b of s.bindings.filter(live)) {
    const key = JSON.stringify([b.metadata.namespace, b.spec.network.name, b.spec.location.name]);
    pairs.set(key, [...(pairs.get(key) ?? []), b]);
  }
  for (const [key, holders] of pairs) {
    const [hubNamespace, network, location] = JSON.parse(key) as string[];
    const route = routeOf(s, hubNamespace);
    const state = route && s.project.get(route.project);
    if (!route || !state) continue;
    const project = s.projects.find((p) => nameOf(p) === route.project);
    const net = state.networks.find((n) => n.metadata.namespace === route.namespace && nameOf(n) === network);
    if (!net || !live(net) || !state.locationBindings.some((b) => nameOf(b) === location) || !project)
      continue;
    const contextName = `${network}-${location}`;
    const context = state.contexts.find(
      (c) => c.metadata.namespace === route.namespace && nameOf(c) === contextName,
    );
    // A context still deleting because interfaces hold its range (S107) keeps the pair waiting.
    const held = [...s.cell.values()].some((c) =>
      c.interfaces.some((i) => i.metadata.namespace === hubNamespace && i.spec.network.name === network),
    );
    if (context && !live(context) && held) continue;
    if (!context || !isTrue(context, 'Ready'))
      out.push(
        `pair ${route.project}/${route.namespace} ${network}@${location}: context ${contextName} is not there and Ready`,
      );
    for (const b of holders) {
      const ref = b.status?.networkContextRef;
      if (!isTrue(b, 'Ready') || ref?.name !== contextName || ref?.namespace !== route.namespace)
        out.push(
          `binding ${hubNamespace}/${nameOf(b)}: not Ready on ${contextName} (${condition(b, 'Ready')?.reason ?? 'no Ready'})`,
        );
    }
  }
}

function checkContexts(s: Snapshot, out: string[]): void {
  for (const [project, state] of s.project) {
    for (const c of state.contexts.filter(live)) {
      const hub = hubNamespaceOf(s, project, c.metadata.namespace);
      const held = s.bindings.some(
        (b) =>
          live(b) &&
          b.metadata.namespace === hub &&
          b.spec.network.name === c.spec.network.name &&
          b.spec.location.name === c.spec.location.name,
      );
      if (!held)
        out.push(`context ${project}/${c.metadata.namespace}/${nameOf(c)} lives without a live binding`);
      const subnet = state.subnets.find(
        (n) => n.metadata.namespace === c.metadata.namespace && nameOf(n) === `${nameOf(c)}-ipv6`,
      );
      if ((c.spec.ipFamilies ?? []).includes('IPv6') && !subnet)
        out.push(`context ${project}/${c.metadata.namespace}/${nameOf(c)} carries IPv6 but has no Subnet`);
      const copy = s.hubContexts.find((h) => h.metadata.namespace === hub && nameOf(h) === nameOf(c));
      if (!copy) out.push(`context ${project}/${nameOf(c)} has no hub copy in ${hub}`);
    }
    for (const n of state.subnets) {
      const context = nameOf(n).replace(/-ipv6$/, '');
      if (!state.contexts.some((c) => c.metadata.namespace === n.metadata.namespace && nameOf(c) === context))
        out.push(`Subnet ${project}/${n.metadata.namespace}/${nameOf(n)} has no context`);
    }
  }
}

function checkHubCopies(s: Snapshot, out: string[]): void {
  const copies = [
    ...s.hubContexts.map((o) => ({ o, kind: 'contexts' as const })),
    ...s.hubSubnets.map((o) => ({ o, kind: 'subnets' as const })),
  ];
  for (const { o, kind } of copies) {
    const route = routeOf(s, o.metadata.namespace);
    const state = route && s.project.get(route.project);
    const source = state?.[kind].find(
      (x) => x.metadata.namespace === route!.namespace && nameOf(x) === nameOf(o),
    );
    if (!source) out.push(`hub copy ${o.metadata.namespace}/${nameOf(o)} has no project source`);
    else if (JSON.stringify(source.spec) !== JSON.stringify(o.spec))
      out.push(`hub copy ${o.metadata.namespace}/${nameOf(o)} differs from its source`);
  }
}

/** Whether cell `cell`'s Cluster exists and is not Ready: nothing reaches it or leaves it. */
function frozen(s: Snapshot, cell: string): boolean {
  const cluster = s.clusters.find((c) => nameOf(c) === cell);
  return cluster !== undefined && !isTrue(cluster, 'Ready');
}

function checkCells(s: Snapshot, out: string[]): void {
  for (const [cell, state] of s.cell) {
    if (frozen(s, cell)) continue;
    const cluster = s.clusters.find((c) => nameOf(c) === cell);
    const serves = cluster?.metadata.labels?.[CLUSTER_LOCATION_LABEL];
    const key = (o: Any) => `${o.metadata.namespace}/${nameOf(o)}`;
    const wanted = new Set(s.hubContexts.filter((h) => serves && h.spec.location.name === serves).map(key));
    for (const c of state.contexts) {
      if (wanted.has(key(c))) continue;
      const used = state.interfaces.some(
        (i) => i.metadata.namespace === c.metadata.namespace && i.spec.network.name === c.spec.network.name,
      );
      if (live(c) || !used)
        out.push(`${cell} holds context ${key(c)}, which is not of the location it serves`);
    }
    const held = new Set(state.contexts.map(key));
    for (const w of wanted) if (!held.has(w)) out.push(`${cell} serving ${serves} lacks context ${w}`);
  }
}

function checkAddresses(s: Snapshot, out: string[]): void {
  for (const [project, state] of s.project) {
    const pools = new Map(state.ipPools.map((p) => [nameOf(p), p]));
    const sameFamily = (a: string, b: string) => a.includes(':') === b.includes(':');
    const byPool = new Map<string, Any[]>();
    for (const a of state.ipAllocations)
      byPool.set(a.spec.poolRef.name, [...(byPool.get(a.spec.poolRef.name) ?? []), a]);
    for (const [pool, allocations] of byPool) {
      const cidr = pools.get(pool)?.spec.cidr;
      for (const [i, a] of allocations.entries()) {
        if (!cidr || !sameFamily(cidr, a.spec.cidr) || !contains(parseCidr(cidr)!, parseCidr(a.spec.cidr)!))
          out.push(`IPAllocation ${project}/${nameOf(a)} ${a.spec.cidr} is outside its pool ${pool}`);
        for (const b of allocations.slice(i + 1))
          if (
            sameFamily(a.spec.cidr, b.spec.cidr) &&
            overlaps(parseCidr(a.spec.cidr)!, parseCidr(b.spec.cidr)!)
          )
            out.push(`IPAllocations ${nameOf(a)} and ${nameOf(b)} of pool ${pool} overlap`);
      }
    }
    const claimsByPool = new Map<string, Any[]>();
    for (const c of state.ipClaims.filter(
      // A ScopeRange claim names the pool it holds, not the one it was drawn from.
      (c) => c.status?.allocatedCIDR && c.status?.poolRef?.name && c.spec.target !== 'ScopeRange',
    ))
      claimsByPool.set(c.status.poolRef.name, [...(claimsByPool.get(c.status.poolRef.name) ?? []), c]);
    for (const [pool, claims] of claimsByPool)
      for (const [i, a] of claims.entries())
        for (const b of claims.slice(i + 1))
          if (overlaps(parseCidr(a.status.allocatedCIDR)!, parseCidr(b.status.allocatedCIDR)!))
            out.push(`IPClaims ${nameOf(a)} and ${nameOf(b)} of pool ${pool} overlap`);
    for (const a of state.ipAllocations)
      if (
        !state.ipClaims.some((c) => c.metadata.namespace === a.metadata.namespace && nameOf(c) === nameOf(a))
      )
        out.push(`IPAllocation ${project}/${a.metadata.namespace}/${nameOf(a)} outlives its IPClaim`);
    for (const c of state.ipClaims) {
      const cell = c.metadata.labels?.[CELL_LABEL];
      if (!cell) continue;
      const owner = nameOf(c).slice(0, nameOf(c).lastIndexOf(`.${cell}-`));
      const hub = hubNamespaceOf(s, project, c.metadata.namespace);
      const cellState = s.cell.get(cell);
      const claimed = cellState?.claims.some(
        (k) => k.metadata.namespace === hub && nameOf(k) === owner && live(k),
      );
      const held = cellState?.interfaces.some(
        (i) =>
          i.metadata.namespace === hub &&
          heldAddresses(i).some(
            (a) => addressClaimName(allocationOwner(i), cell, a.discriminator) === nameOf(c),
          ),
      );
      if (!claimed && !held)
        out.push(`IPClaim ${project}/${nameOf(c)} has no live claim and no interface holding it`);
    }
  }
}

function checkClaims(s: Snapshot, out: string[]): void {
  for (const [cell, state] of s.cell) {
    if (frozen(s, cell)) continue;
    for (const k of state.claims.filter(live)) {
      const route = routeOf(s, k.metadata.namespace);
      const projectState = route && s.project.get(route.project);
      const served = s.clusters.find((c) => nameOf(c) === cell)?.metadata.labels?.[CLUSTER_LOCATION_LABEL];
      const context = state.contexts.find(
        (c) =>
          c.metadata.namespace === k.metadata.namespace && nameOf(c) === `${k.spec.network.name}-${served}`,
      );
      const families: string[] = k.spec.ipFamilies ?? ['IPv6'];
      if (!projectState || !context || !families.every((f) => (context.spec.ipFamilies ?? []).includes(f)))
        continue;
      const name = `${cell}/${k.metadata.namespace}/${nameOf(k)}`;
      const iface = state.interfaces.find(
        (i) =>
          i.metadata.namespace === k.metadata.namespace &&
          nameOf(i) === (k.spec.networkInterfaceName ?? nameOf(k)),
      );
      // An interface of that name the claim may not adopt (a retained one on another network, say)
      // is a refusal the claim reports, not a fault.
      if (iface && iface.spec.claimRef?.name !== nameOf(k) && adoptionRefusal(iface, k)) continue;
      if (!isTrue(k, 'Bound') || !iface || iface.spec.claimRef?.name !== nameOf(k)) {
        out.push(
          `claim ${name} is not Bound to its interface (${condition(k, 'Ready')?.reason ?? 'no Ready'})`,
        );
        continue;
      }
      for (const held of heldAddresses(iface)) {
        const owner = allocationOwner(iface);
        const names = [
          addressClaimName(owner, cell, held.discriminator),
          legacyAddressClaimName(owner, held.discriminator),
        ];
        const backed = projectState.ipClaims.some(
          (c) =>
            names.includes(nameOf(c)) &&
            c.metadata.namespace === route.namespace &&
            c.status?.allocatedCIDR === held.address,
        );
        if (!held.external && !backed)
          out.push(`claim ${name}: address ${held.address} is held by no IPClaim`);
      }
    }
  }
}

function checkFinalizers(s: Snapshot, out: string[]): void {
  const all = [
    ...s.bindings,
    ...s.hubContexts,
    ...s.hubSubnets,
    ...[...s.project.values()].flatMap((p) => [...p.networks, ...p.contexts, ...p.subnets, ...p.ipClaims]),
    ...[...s.cell.values()].flatMap((c) => [...c.contexts, ...c.claims, ...c.interfaces]),
  ];
  for (const o of all)
    if (o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).length === 0)
      out.push(`${o.kind} ${o.metadata.namespace}/${nameOf(o)} is deleting without finalizers`);
}

/** Every invariant above that does not hold now; `cells` are the cell contexts to read. */
export async function checkInvariants(reader: FleetReader, cells: readonly string[]): Promise<string[]> {
  const s = await snapshot(reader, cells);
  const out: string[] = [];
  checkLocationBindings(s, out);
  checkPairs(s, out);
  checkContexts(s, out);
  checkHubCopies(s, out);
  checkCells(s, out);
  checkAddresses(s, out);
  checkClaims(s, out);
  checkFinalizers(s, out);
  return out;
}

/** How many invariant families `checkInvariants` evaluates (for the bench's count of checks). */
export const INVARIANT_COUNT = 9;

/**
 * Waits until two checks in a row find nothing (the fleet has converged), or `timeoutMs` passed;
 * returns the violations of the last check (empty when it converged) and how many checks ran.
 */
export async function settledInvariants(
  reader: FleetReader,
  cells: readonly string[],
  timeoutMs: number,
): Promise<{ violations: string[]; checks: number }> {
  const deadline = performance.now() + timeoutMs;
  let clean = 0;
  let checks = 0;
  for (;;) {
    checks++;
    const violations = await checkInvariants(reader, cells).catch((err: Error) => [
      `reading the fleet failed: ${err.message}`,
    ]);
    clean = violations.length === 0 ? clean + 1 : 0;
    if (clean >= 2 || performance.now() > deadline) return { violations, checks };
    await new Promise((resolve) => setTimeout(resolve, violations.length === 0 ? 300 : 500));
  }
}
