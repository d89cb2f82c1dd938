/**
 * Model-based testing of the fleet with fast-check: random sequences of operator commands against
 * an in-process `netpresence up` fleet, a model that predicts each binding's Ready reason and each
 * claim's Bound, and, after each sequence, a wait for the fleet to converge to the predictions
 * and the invariants of test/support/invariants.ts.
 *
 * Guarantees: commands are applied without waiting in between, so the fleet sees them racing as a
 * busy operator would; the model predicts only what does not depend on that timing — a claim that
 * may or may not have bound while its context briefly existed, or whose name a retained interface
 * may hold, is predicted `unknown` and only the invariants judge it. A Network created again after
 * its deletion gets a new name (whether the old one is gone yet is timing); a binding or claim of a
 * deleted name is created again once its old object is gone (bounded). Each sequence uses its own
 * names (prefix `s<n>-`) and, once checked, deletes what it made and waits (bounded) for all of it
 * to be gone — a deletion that does not complete is a violation — so one fleet serves many
 * sequences; location availability, each cell Cluster's `Ready` and location label, and the
 * project (re-created under a new uid after a deletion) are restored after each, and a sequence
 * that changed any of them is checked against the invariants once more after the restore. Every
 * wait is bounded. The fleet leaves Cluster `Ready` to the harness (`clusterReadiness: false`), so
 * a cell can be turned unready as propagation.md §1.2 lets tests do.
 * Caveat: after `deleteProject` the model predicts nothing more of that sequence's objects (they
 * go with the project's plane and hub namespace); only the invariants and the check that every
 * object of the sequence is gone judge what follows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { parseKubeConfig, withContext } from '../../src/client/kubeconfig.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { parseFleetConfig } from '../../src/fleet/config.ts';
import { startFleet, type Fleet } from '../../src/fleet/fleet.ts';
import { hubNamespaceName } from '../../src/apis/common/upstream.ts';
import { KINDS } from '../support/fleet.ts';
import { settledInvariants, type FleetReader } from '../support/invariants.ts';
import { SERVICE_AVAILABILITIES } from '../support/project-fixtures.ts';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import { IP_ALLOCATIONS } from '../support/cell-fixtures.ts';
import { CHAOS_CELLS, chaosConfig } from './chaos-driver.ts';

type Any = any;
type Family = 'IPv4' | 'IPv6';
type Location = 'us-central-1' | 'eu-west-1';
type Cell = 'cell-a' | 'cell-b';

const LOCATIONS: Location[] = ['us-central-1', 'eu-west-1'];
const CELLS: Cell[] = ['cell-a', 'cell-b'];
/** The location each cell serves at the start of every sequence (chaosConfig). */
const HOME: Record<Cell, Location> = { 'cell-a': 'us-central-1', 'cell-b': 'eu-west-1' };
const PROJECT = 'project-alpha';
const PROJECT_CONTEXT = `project-${PROJECT}`;

export type Command =
  | { kind: 'createNetwork'; network: number; families: Family[] }
  | { kind: 'deleteNetwork'; network: number }
  | { kind: 'editFamilies'; network: number; families: Family[] }
  | { kind: 'editMtu'; network: number; mtu: number }
  | { kind: 'createBinding'; binding: number; network: number; location: Location }
  | { kind: 'deleteBinding'; binding: number }
  | { kind: 'locationReady'; location: Location; ready: boolean }
  | { kind: 'serviceAvailable'; location: Location; available: boolean }
  | { kind: 'clusterReady'; cell: Cell; ready: boolean }
  /** Moves cell `cell`'s location label to `location` (null: removes it). */
  | { kind: 'relabel'; cell: Cell; location: Location | null }
  | {
      kind: 'createClaim';
      claim: number;
      cell: Cell;
      network: number;
      families: Family[];
      retain: boolean;
    }
  | { kind: 'deleteClaim'; claim: number; cell: Cell }
  | { kind: 'deleteProject' };

const families = fc.constantFrom<Family[]>(['IPv6'], ['IPv4'], ['IPv6', 'IPv4'], ['IPv4', 'IPv6']);
const location = fc.constantFrom<Location>(...LOCATIONS);
const cell = fc.constantFrom<Cell>(...CELLS);
const index = fc.integer({ min: 0, max: 1 });

/**
 * Creations weigh most, so that sequences build something to break; a Project deletion, which
 * ends the sequence's project, weighs least.
 */
export const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('createNetwork' as const), network: index, families }),
    weight: 8,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteNetwork' as const), network: index }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('editFamilies' as const), network: index, families }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('editMtu' as const),
      network: index,
      mtu: fc.integer({ min: 1300, max: 8856 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('createBinding' as const),
      binding: index,
      network: index,
      location,
    }),
    weight: 8,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteBinding' as const), binding: index }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('locationReady' as const), location, ready: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('serviceAvailable' as const),
      location,
      available: fc.boolean(),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('clusterReady' as const), cell, ready: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('relabel' as const),
      cell,
      location: fc.option(location, { nil: null, freq: 3 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('createClaim' as const),
      claim: index,
      cell,
      network: index,
      families: families.map((f) => f.slice(0, 1)),
      retain: fc.boolean(),
    }),
    weight: 8,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteClaim' as const), claim: index, cell }), weight: 2 },
  { arbitrary: fc.constant<Command>({ kind: 'deleteProject' }), weight: 1 },
);

/**
 * A start that builds something to break: a Network, a binding of it and a claim on it in one
 * location (the claim asking a family the Network may or may not carry).
 */
const buildArbitrary: fc.Arbitrary<Command[]> = fc
  .record({ network: index, families, location, claimFamilies: families, retain: fc.boolean() })
  .map(({ network, families, location, claimFamilies, retain }): Command[] => [
    { kind: 'createNetwork', network, families },
    { kind: 'createBinding', binding: 0, network, location },
    {
      kind: 'createClaim',
      claim: 0,
      cell: location === HOME['cell-a'] ? 'cell-a' : 'cell-b',
      network,
      families: claimFamilies.slice(0, 1),
      retain,
    },
  ]);

/** A sequence of commands: often a build first, then random commands racing it. */
export const sequenceArbitrary: fc.Arbitrary<Command[]> = fc
  .tuple(
    fc.oneof({ arbitrary: buildArbitrary, weight: 3 }, { arbitrary: fc.constant<Command[]>([]), weight: 1 }),
    fc.array(commandArbitrary, { minLength: 2, maxLength: 10 }),
  )
  .map(([build, rest]) => [...build, ...rest]);

/** What the model knows of one sequence. */
export class FleetModel {
  /** Networks by name; a deleted one keeps its entry (it may still be deleting in the fleet). */
  networks = new Map<string, { families: Family[]; deleted: boolean }>();
  /** How many times each network index was created again after a deletion. */
  generations = new Map<number, number>();
  bindings = new Map<number, { network: string; location: Location }>();
  locationReady: Record<Location, boolean> = { 'us-central-1': true, 'eu-west-1': true };
  serviceAvailable: Record<Location, boolean> = { 'us-central-1': true, 'eu-west-1': true };
  /** Each cell Cluster's `Ready`. */
  clusterReady: Record<Cell, boolean> = { 'cell-a': true, 'cell-b': true };
  /** The location each cell's Cluster is labelled with (undefined: no label). */
  cellLocation: Record<Cell, Location | undefined> = { ...HOME };
  /** Every location each cell was labelled with during the sequence. */
  labelledOnce: Record<Cell, Set<Location>> = {
    'cell-a': new Set([HOME['cell-a']]),
    'cell-b': new Set([HOME['cell-b']]),
  };
  /** The project was deleted: nothing of the sequence's is left to predict. */
  projectDeleted = false;
  /** Claims by `cell/claim index`. */
  claims = new Map<string, { network: string; families: Family[]; retain: boolean; mayHaveBound: boolean }>();
  /** Claim names (cell/claim) whose earlier Retain claim may have left an interface. */
  retainedMaybe = new Set<string>();
  /**
   * Pairs (network@location) whose context was present at some point: it outlives its last reason
   * for a moment, so a claim created just after may bind, and its interface then keeps the context.
   */
  presentOnce = new Set<string>();

  /**
   * The name network index `n` has now: a Network created again after a deletion gets a new
   * name, since whether the old one is gone yet (and the name free) is the fleet's timing.
   */
  networkName(n: number): string {
    const generation = this.generations.get(n) ?? 0;
    return generation === 0 ? `n${n}` : `n${n}r${generation}`;
  }

  available(l: Location): boolean {
    return this.locationReady[l] && this.serviceAvailable[l];
  }

  liveNetwork(name: string) {
    const network = this.networks.get(name);
    return network && !network.deleted ? network : undefined;
  }

  contextPresent(name: string, l: Location): boolean {
    return (
      this.liveNetwork(name) !== undefined &&
      this.available(l) &&
      [...this.bindings.values()].some((b) => b.network === name && b.location === l)
    );
  }

  /**
   * Whether the claim's cell holds, right now, a context that carries its families: the cell's
   * Cluster is Ready (an unready one receives nothing: propagation.md §5.6) and labelled with a
   * location where the claim's network is present.
   */
  claimServed(c: { network: string; families: Family[] }, cell: Cell): boolean {
    const l = this.cellLocation[cell];
    if (!this.clusterReady[cell] || l === undefined) return false;
    const network = this.liveNetwork(c.network);
    return this.contextPresent(c.network, l) && c.families.every((f) => network!.families.includes(f));
  }

  /** Applies a command; false when the fleet is expected to refuse it (nothing changes). */
  apply(command: Command): boolean {
    // Once the project is gone, every command on its objects is refused (or undone with it).
    const ofProject = !['locationReady', 'serviceAvailable', 'clusterReady', 'relabel'].includes(
      command.kind,
    );
    if (this.projectDeleted && ofProject) return false;
    switch (command.kind) {
      case 'createNetwork': {
        const current = this.networks.get(this.networkName(command.network));
        if (current && !current.deleted) return false;
        if (current) this.generations.set(command.network, (this.generations.get(command.network) ?? 0) + 1);
        this.networks.set(this.networkName(command.network), { families: command.families, deleted: false });
        break;
      }
      case 'deleteNetwork':
        if (!this.liveNetwork(this.networkName(command.network))) return false;
        this.networks.get(this.networkName(command.network))!.deleted = true;
        break;
      case 'editFamilies':
        if (!this.liveNetwork(this.networkName(command.network))) return false;
        this.networks.get(this.networkName(command.network))!.families = command.families;
        break;
      case 'editMtu':
        if (!this.liveNetwork(this.networkName(command.network))) return false;
        break;
      case 'createBinding':
        if (this.bindings.has(command.binding)) return false;
        this.bindings.set(command.binding, {
          network: this.networkName(command.network),
          location: command.location,
        });
        break;
      case 'deleteBinding':
        if (!this.bindings.delete(command.binding)) return false;
        break;
      case 'locationReady':
        this.locationReady[command.location] = command.ready;
        break;
      case 'serviceAvailable':
        this.serviceAvailable[command.location] = command.available;
        break;
      case 'clusterReady':
        this.clusterReady[command.cell] = command.ready;
        break;
      case 'relabel':
        this.cellLocation[command.cell] = command.location ?? undefined;
        if (command.location) this.labelledOnce[command.cell].add(command.location);
        break;
      case 'createClaim': {
        const key = `${command.cell}/${command.claim}`;
        if (this.claims.has(key)) return false;
        this.claims.set(key, {
          network: this.networkName(command.network),
          families: command.families,
          retain: command.retain,
          mayHaveBound: false,
        });
        break;
      }
      case 'deleteClaim': {
        const key = `${command.cell}/${command.claim}`;
        const claim = this.claims.get(key);
        if (!claim) return false;
        if (claim.retain && claim.mayHaveBound) this.retainedMaybe.add(key);
        this.claims.delete(key);
        break;
      }
      case 'deleteProject':
        // The plane, its Networks, the hub namespace with its bindings and the cells' copies of
        // it with their claims all go.
        this.projectDeleted = true;
        for (const network of this.networks.values()) network.deleted = true;
        this.bindings.clear();
        this.claims.clear();
        break;
    }
    for (const [name] of this.networks)
      for (const l of LOCATIONS) if (this.contextPresent(name, l)) this.presentOnce.add(`${name}@${l}`);
    // A claim served at any moment may have bound then, whatever happens later; so may one whose
    // pair had a context earlier in the sequence in a location its cell served at some point (that
    // context may not be gone yet, and an unready or relabelled cell may still hold its copy).
    for (const [key, claim] of this.claims) {
      const cell = key.slice(0, key.indexOf('/')) as Cell;
      if (
        this.claimServed(claim, cell) ||
        [...this.labelledOnce[cell]].some((l) => this.presentOnce.has(`${claim.network}@${l}`))
      )
        claim.mayHaveBound = true;
    }
    return true;
  }

  /** Whether the sequence changed a cell Cluster or the project (restored after it). */
  changedClusters(): boolean {
    return (
      this.projectDeleted ||
      CELLS.some(
        (c) => !this.clusterReady[c] || this.labelledOnce[c].size > 1 || this.cellLocation[c] !== HOME[c],
      )
    );
  }

  /** The predicted Ready reason of every binding. */
  bindingReasons(): Map<number, string> {
    const reasons = new Map<number, string>();
    for (const [n, b] of this.bindings) {
      if (!this.available(b.location)) reasons.set(n, 'LocationNotAvailable');
      else if (!this.liveNetwork(b.network)) reasons.set(n, 'NetworkNotFound');
      else reasons.set(n, 'NetworkContextReady');
    }
    return reasons;
  }

  /** The predicted Bound of every claim: true, false, or undefined when timing decides. */
  claimBound(): Map<string, boolean | undefined> {
    const bound = new Map<string, boolean | undefined>();
    for (const [key, claim] of this.claims) {
      const cell = key.slice(0, key.indexOf('/')) as Cell;
      if (this.retainedMaybe.has(key)) bound.set(key, undefined);
      else if (this.claimServed(claim, cell)) bound.set(key, true);
      else bound.set(key, claim.mayHaveBound ? undefined : false);
    }
    return bound;
  }
}

/** The fleet the model runs against, in this process. */
export interface ModelFleet extends FleetReader {
  /** The hub namespace of `project-alpha`/`default` (a new one after the project is re-created). */
  H: string;
  stop(): Promise<void>;
}

/** How long the project's namespace, and its hub namespace on every plane, may take to appear. */
const PROJECT_WITHIN_MS = 60_000;

/** Polls `check` every 100 ms until it returns a value (errors count as not yet) or `ms` passed. */
async function waitFor<T>(check: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits for project-alpha's namespace and its hub namespace on the hub and every cell; returns it. */
async function projectHubNamespace(f: FleetReader): Promise<string> {
  // Bounded: a fleet that never publishes the project's namespace fails here, not in a command.
  const namespace = await waitFor(
    () => f.client<Any>(PROJECT_CONTEXT, KINDS.namespaces).get('default'),
    PROJECT_WITHIN_MS,
    `${PROJECT_CONTEXT}/default`,
  );
  const H = hubNamespaceName(namespace.metadata.uid);
  // Claims are created in H on each cell: it must be there first (scenarios.md §0).
  for (const context of ['hub', ...CHAOS_CELLS])
    await waitFor(
      async () => {
        const ns = await f.client<Any>(context, KINDS.namespaces).get(H);
        return ns && !ns.metadata.deletionTimestamp ? ns : undefined;
      },
      PROJECT_WITHIN_MS,
      `${H} on ${context}`,
    );
  return H;
}

/** Starts the model's fleet; its logs go to `log` (silent by default). */
export async function startModelFleet(log = pino({ level: 'silent' })): Promise<ModelFleet> {
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-model-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const fleet: Fleet = await startFleet({
    config: parseFleetConfig(chaosConfig(), 'chaos.yaml'),
    kubeconfigPath,
    port: 0,
    log,
    // The harness writes each cell Cluster's Ready, so that it can turn a cell unready.
    clusterReadiness: false,
  });
  const parsed = parseKubeConfig(kubeconfigPath);
  const client = <T extends KubeObject>(context: string, id: ResourceId) =>
    resourceClient<T>(withContext(parsed, kubeconfigPath, context), id);
  try {
    const reader: FleetReader = { client };
    for (const cell of CELLS)
      await waitFor(
        () => reader.client('hub', KINDS.clusters).get(cell),
        PROJECT_WITHIN_MS,
        `Cluster ${cell}`,
      );
    for (const cell of CELLS) await setCondition(reader, 'hub', KINDS.clusters, cell, 'Ready', true);
    const H = await projectHubNamespace(reader);
    return {
      H,
      client,
      async stop() {
        await fleet.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await fleet.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

async function setCondition(
  f: FleetReader,
  plane: string,
  id: ResourceId,
  name: string,
  type: string,
  status: boolean,
) {
  const platform = f.client<Any>(plane, id);
  const object = await platform.get(name);
  const conditions = (object.status?.conditions ?? []).filter((c: Any) => c.type !== type);
  conditions.push({
    type,
    status: status ? 'True' : 'False',
    reason:
      id === KINDS.clusters ? (status ? 'ClusterReady' : 'ClusterNotReady') : status ? type : `Not${type}`,
    message: `${type} is ${status}`,
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    observedGeneration: object.metadata.generation,
  });
  await platform.patchMerge(name, undefined, { status: { conditions } }, { subresource: 'status' });
}

const availabilityName = (l: Location) => `networking.datumapis.com--${l}`;

/** Sets (or, with null, removes) cell `cell`'s location label on its hub Cluster. */
async function relabel(f: FleetReader, cell: Cell, location: Location | null): Promise<void> {
  await f
    .client<Any>('hub', KINDS.clusters)
    .patchMerge(cell, undefined, { metadata: { labels: { [CLUSTER_LOCATION_LABEL]: location } } });
}

/**
 * Puts back what a sequence changed beyond its own objects: location availability, each cell
 * Cluster's Ready and label, and the project (created again after a deletion, under a new uid:
 * `f.H` follows its new hub namespace).
 */
async function restore(f: ModelFleet, model: FleetModel): Promise<void> {
  for (const l of LOCATIONS) {
    if (!model.locationReady[l]) await setCondition(f, 'platform', KINDS.locations, l, 'Ready', true);
    if (!model.serviceAvailable[l])
      await setCondition(f, 'platform', SERVICE_AVAILABILITIES, availabilityName(l), 'Available', true);
  }
  for (const cell of CELLS) {
    if (model.cellLocation[cell] !== HOME[cell]) await relabel(f, cell, HOME[cell]);
    if (!model.clusterReady[cell]) await setCondition(f, 'hub', KINDS.clusters, cell, 'Ready', true);
  }
  if (!model.projectDeleted) return;
  const projects = f.client<Any>('platform', KINDS.projects);
  // The deleted Project may still be finishing; the same name is free once it is gone.
  await waitFor(
    async () => ((await projects.get(PROJECT)) === undefined ? true : undefined),
    PROJECT_WITHIN_MS,
    `Project ${PROJECT} to go`,
  );
  await projects.create({
    metadata: { name: PROJECT },
    spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
  });
  f.H = await projectHubNamespace(f);
}

/**
 * Sends one command to the fleet, with the names the model gave it (call after `model.apply`).
 */
async function send(f: ModelFleet, prefix: string, model: FleetModel, command: Command): Promise<void> {
  const networks = f.client<Any>(PROJECT_CONTEXT, KINDS.networks);
  const network = (n: number) => `${prefix}${model.networkName(n)}`;
  switch (command.kind) {
    case 'createNetwork':
      await networks.create({
        metadata: { name: network(command.network), namespace: 'default' },
        spec: { ipam: { mode: 'Auto' }, ipFamilies: command.families },
      });
      return;
    case 'deleteNetwork':
      await networks.delete(network(command.network), 'default');
      return;
    case 'editFamilies':
      await networks.patchMerge(network(command.network), 'default', {
        spec: { ipFamilies: command.families },
      });
      return;
    case 'editMtu':
      await networks.patchMerge(network(command.network), 'default', { spec: { mtu: command.mtu } });
      return;
    case 'createBinding': {
      const name = `${prefix}b${command.binding}`;
      await f.client<Any>('hub', KINDS.networkBindings).create({
        metadata: { name, namespace: f.H },
        spec: {
          network: { name: `${prefix}${model.bindings.get(command.binding)!.network}` },
          location: { name: command.location },
          consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
        },
      });
      return;
    }
    case 'deleteBinding':
      await f.client<Any>('hub', KINDS.networkBindings).delete(`${prefix}b${command.binding}`, f.H);
      return;
    case 'locationReady':
      await setCondition(f, 'platform', KINDS.locations, command.location, 'Ready', command.ready);
      return;
    case 'clusterReady':
      await setCondition(f, 'hub', KINDS.clusters, command.cell, 'Ready', command.ready);
      return;
    case 'relabel':
      await relabel(f, command.cell, command.location);
      return;
    case 'deleteProject':
      await f.client<Any>('platform', KINDS.projects).delete(PROJECT);
      return;
    case 'serviceAvailable':
      await setCondition(
        f,
        'platform',
        SERVICE_AVAILABILITIES,
        availabilityName(command.location),
        'Available',
        command.available,
      );
      return;
    case 'createClaim': {
      const claim = model.claims.get(`${command.cell}/${command.claim}`)!;
      await f.client<Any>(command.cell, KINDS.claims).create({
        metadata: { name: `${prefix}c${command.claim}`, namespace: f.H },
        spec: {
          network: { name: `${prefix}${claim.network}` },
          ipFamilies: command.families,
          reclaimPolicy: command.retain ? 'Retain' : 'Delete',
        },
      });
      return;
    }
    case 'deleteClaim':
      await f.client<Any>(command.cell, KINDS.claims).delete(`${prefix}c${command.claim}`, f.H);
      return;
  }
}

/** How long a re-creation waits for the deleted object of its name to be gone. */
const RECREATE_WITHIN_MS = 60_000;

/**
 * Sends a command the model accepts; a create refused 409 because the object of that name,
 * deleted earlier in the sequence, is still finishing its deletion is sent again (as an operator
 * would) until it is accepted or RECREATE_WITHIN_MS passed.
 */
async function sendAccepted(f: ModelFleet, prefix: string, model: FleetModel, command: Command) {
  const deadline = performance.now() + RECREATE_WITHIN_MS;
  for (;;) {
    try {
      return await send(f, prefix, model, command);
    } catch (err) {
      const conflict = (err as { code?: number }).code === 409 && command.kind.startsWith('create');
      if (!conflict || performance.now() > deadline)
        throw new Error(`${JSON.stringify(command)} was refused: ${(err as Error).message}`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** What differs between the model's predictions and the fleet now. */
async function mismatches(f: ModelFleet, prefix: string, model: FleetModel): Promise<string[]> {
  const out: string[] = [];
  for (const [n, reason] of model.bindingReasons()) {
    const binding = await f.client<Any>('hub', KINDS.networkBindings).get(`${prefix}b${n}`, f.H);
    const ready = (binding?.status?.conditions ?? []).find((c: Any) => c.type === 'Ready');
    if (ready?.reason !== reason)
      out.push(`binding ${prefix}b${n}: Ready reason ${ready?.reason}, model ${reason}`);
  }
  for (const [key, expected] of model.claimBound()) {
    if (expected === undefined) continue;
    const [cell, claim] = key.split('/');
    const object = await f.client<Any>(cell, KINDS.claims).get(`${prefix}c${claim}`, f.H);
    const bound = (object?.status?.conditions ?? []).find((c: Any) => c.type === 'Bound')?.status === 'True';
    if (bound !== expected) out.push(`claim ${cell}/${prefix}c${claim}: Bound ${bound}, model ${expected}`);
  }
  return out;
}

/** Every object of kind `id` in `plane`; none when the plane is not served (a deleted project's). */
async function listOrNone(f: FleetReader, plane: string, id: ResourceId, namespace?: string): Promise<Any[]> {
  try {
    return (await f.client<Any>(plane, id).list(namespace === undefined ? {} : { namespace })).items;
  } catch (err) {
    if ((err as { code?: number }).code === 404 && plane === PROJECT_CONTEXT) return [];
    throw err;
  }
}

/** Every object of the sequence `prefix` left in the fleet, as `plane kind namespace/name`. */
async function leftovers(f: ModelFleet, prefix: string): Promise<string[]> {
  const planes: [string, ResourceId[]][] = [
    ['hub', [KINDS.networkBindings, KINDS.networkContexts, KINDS.subnets]],
    [PROJECT_CONTEXT, [KINDS.networks, KINDS.networkContexts, KINDS.subnets, KINDS.ipClaims, IP_ALLOCATIONS]],
    ...CHAOS_CELLS.map((cell): [string, ResourceId[]] => [
      cell,
      [KINDS.claims, KINDS.interfaces, KINDS.networkContexts],
    ]),
  ];
  const out: string[] = [];
  for (const [plane, ids] of planes)
    for (const id of ids)
      for (const o of await listOrNone(f, plane, id))
        if (o.metadata.name.startsWith(prefix)) {
          const conditions = (o.status?.conditions ?? []).map(
            (c: Any) => `${c.type}=${c.status} ${c.reason}`,
          );
          out.push(
            `${plane} ${id.plural} ${o.metadata.namespace}/${o.metadata.name} ` +
              `(${o.metadata.deletionTimestamp ? 'deleting' : 'live'}, finalizers ` +
              `[${(o.metadata.finalizers ?? []).join(', ')}], conditions [${conditions.join('; ')}])`,
          );
        }
  return out;
}

/**
 * Deletes what the sequence `prefix` made (claims, interfaces, bindings, Networks) and waits up
 * to `withinMs` for everything of it to be gone; returns what is still there then.
 */
async function cleanUp(f: ModelFleet, prefix: string, withinMs: number): Promise<string[]> {
  const deleteAll = async (plane: string, id: ResourceId, namespace?: string) => {
    const client = f.client<Any>(plane, id);
    for (const o of await listOrNone(f, plane, id, namespace))
      if (o.metadata.name.startsWith(prefix) && !o.metadata.deletionTimestamp)
        await client.delete(o.metadata.name, o.metadata.namespace).catch(() => undefined);
  };
  // Every namespace: after a Project deletion, what is left may sit in the old hub namespace.
  for (const cell of CHAOS_CELLS) {
    await deleteAll(cell, KINDS.claims);
    await deleteAll(cell, KINDS.interfaces);
  }
  await deleteAll('hub', KINDS.networkBindings);
  await deleteAll(PROJECT_CONTEXT, KINDS.networks);
  const deadline = performance.now() + withinMs;
  let left = await leftovers(f, prefix);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await leftovers(f, prefix);
  }
  return left.map((o) => `${o} is still there ${withinMs} ms after the sequence's objects were deleted`);
}

export interface SequenceOutcome {
  mismatches: string[];
  violations: string[];
  invariantChecks: number;
  /** What the model predicted and the fleet was checked against: reasons by name, claims' Bound. */
  predicted: Record<string, number>;
}

/** Counts the predictions of `model`, so a run can show it predicted something worth checking. */
function predictions(model: FleetModel): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  for (const reason of model.bindingReasons().values()) add(reason);
  for (const bound of model.claimBound().values())
    add(bound === undefined ? 'claimUnknown' : bound ? 'claimBound' : 'claimUnbound');
  return counts;
}

/** Runs one sequence on `f`, waits for convergence, checks, then restores availability. */
export async function runSequence(
  f: ModelFleet,
  prefix: string,
  commands: readonly Command[],
  settleMs: number,
): Promise<SequenceOutcome> {
  const model = new FleetModel();
  for (const command of commands) {
    // A command the model refuses is sent too: the fleet must refuse it, or change nothing.
    if (model.apply(command)) await sendAccepted(f, prefix, model, command);
    else await send(f, prefix, model, command).catch(() => undefined);
  }
  const deadline = performance.now() + settleMs;
  let found = await mismatches(f, prefix, model);
  while (found.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    found = await mismatches(f, prefix, model);
  }
  const settled = await settledInvariants(f, CHAOS_CELLS, Math.max(5000, deadline - performance.now()));
  const violations = [...settled.violations];
  let checks = settled.checks;
  await restore(f, model);
  // A cell made Ready or given its label back (or a project created again) must converge too.
  if (model.changedClusters()) {
    const restored = await settledInvariants(f, CHAOS_CELLS, settleMs);
    checks += restored.checks;
    violations.push(...restored.violations.map((v) => `after the restore: ${v}`));
  }
  // What the sequence made is removed, so the next one starts from the same fleet and the fleet
  // stays small over a thousand sequences; that every deletion completes is checked too.
  const left = await cleanUp(f, prefix, settleMs);
  return {
    mismatches: found,
    violations: [...violations, ...left],
    invariantChecks: checks,
    predicted: predictions(model),
  };
}
