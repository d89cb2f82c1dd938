/**
 * Model-based testing of the fleet with fast-check: random sequences of operator commands against
 * an in-process `netpresence up` fleet, a model that predicts each binding's Ready reason and each
 * claim's Bound, and, after each sequence, a wait for the fleet to converge to the predictions
 * and the invariants of test/support/invariants.ts.
 *
 * Guarantees: commands are applied without waiting in between, so the fleet sees them racing as a
 * busy operator would; the model predicts only what does not depend on that timing — a claim that
 * may or may not have bound while its context briefly existed, or whose name a retained interface
 * may hold, is predicted `unknown` and only the invariants judge it. Each sequence uses its own
 * names (prefix `s<n>-`), so one fleet serves many sequences; location availability is restored
 * after each.
 * Caveats: Cluster readiness and relabelling and Project deletion are not among the commands (the
 * fleet's stand-ins drive those); a Network name is never reused within a sequence once deleted,
 * as a Network held by its contexts' interfaces may still be deleting.
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
import { CHAOS_CELLS, chaosConfig } from './chaos-driver.ts';

type Any = any;
type Family = 'IPv4' | 'IPv6';
type Location = 'us-central-1' | 'eu-west-1';

const LOCATIONS: Location[] = ['us-central-1', 'eu-west-1'];
const CELL_OF: Record<Location, string> = { 'us-central-1': 'cell-a', 'eu-west-1': 'cell-b' };
const PROJECT_CONTEXT = 'project-project-alpha';

export type Command =
  | { kind: 'createNetwork'; network: number; families: Family[] }
  | { kind: 'deleteNetwork'; network: number }
  | { kind: 'editFamilies'; network: number; families: Family[] }
  | { kind: 'editMtu'; network: number; mtu: number }
  | { kind: 'createBinding'; binding: number; network: number; location: Location }
  | { kind: 'deleteBinding'; binding: number }
  | { kind: 'locationReady'; location: Location; ready: boolean }
  | { kind: 'serviceAvailable'; location: Location; available: boolean }
  | {
      kind: 'createClaim';
      claim: number;
      location: Location;
      network: number;
      families: Family[];
      retain: boolean;
    }
  | { kind: 'deleteClaim'; claim: number; location: Location };

const families = fc.constantFrom<Family[]>(['IPv6'], ['IPv4'], ['IPv6', 'IPv4'], ['IPv4', 'IPv6']);
const location = fc.constantFrom<Location>(...LOCATIONS);
const index = fc.integer({ min: 0, max: 1 });

/** Creations weigh most, so that sequences build something to break. */
export const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('createNetwork' as const), network: index, families }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteNetwork' as const), network: index }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('editFamilies' as const), network: index, families }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('editMtu' as const),
      network: index,
      mtu: fc.integer({ min: 1300, max: 8856 }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('createBinding' as const),
      binding: index,
      network: index,
      location,
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteBinding' as const), binding: index }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('locationReady' as const), location, ready: fc.boolean() }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('serviceAvailable' as const),
      location,
      available: fc.boolean(),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('createClaim' as const),
      claim: index,
      location,
      network: index,
      families: families.map((f) => f.slice(0, 1)),
      retain: fc.boolean(),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('deleteClaim' as const), claim: index, location }), weight: 1 },
);

/** A sequence of commands, long enough to build and break something. */
export const sequenceArbitrary = fc.array(commandArbitrary, { minLength: 4, maxLength: 12 });

/** What the model knows of one sequence. */
export class FleetModel {
  networks = new Map<number, { families: Family[]; deleted: boolean }>();
  bindings = new Map<number, { network: number; location: Location }>();
  locationReady: Record<Location, boolean> = { 'us-central-1': true, 'eu-west-1': true };
  serviceAvailable: Record<Location, boolean> = { 'us-central-1': true, 'eu-west-1': true };
  claims = new Map<string, { network: number; families: Family[]; retain: boolean; mayHaveBound: boolean }>();
  /** Claim names (cell/claim) whose earlier Retain claim may have left an interface. */
  retainedMaybe = new Set<string>();

  available(l: Location): boolean {
    return this.locationReady[l] && this.serviceAvailable[l];
  }

  liveNetwork(n: number) {
    const network = this.networks.get(n);
    return network && !network.deleted ? network : undefined;
  }

  contextPresent(n: number, l: Location): boolean {
    return (
      this.liveNetwork(n) !== undefined &&
      this.available(l) &&
      [...this.bindings.values()].some((b) => b.network === n && b.location === l)
    );
  }

  /** Whether the claim's context carries its families right now. */
  claimServed(c: { network: number; families: Family[] }, l: Location): boolean {
    const network = this.liveNetwork(c.network);
    return this.contextPresent(c.network, l) && c.families.every((f) => network!.families.includes(f));
  }

  /** Applies a command; false when the fleet is expected to refuse it (nothing changes). */
  apply(command: Command): boolean {
    switch (command.kind) {
      case 'createNetwork':
        if (this.networks.has(command.network)) return false;
        this.networks.set(command.network, { families: command.families, deleted: false });
        break;
      case 'deleteNetwork':
        if (!this.liveNetwork(command.network)) return false;
        this.networks.get(command.network)!.deleted = true;
        break;
      case 'editFamilies':
        if (!this.liveNetwork(command.network)) return false;
        this.networks.get(command.network)!.families = command.families;
        break;
      case 'editMtu':
        if (!this.liveNetwork(command.network)) return false;
        break;
      case 'createBinding':
        if (this.bindings.has(command.binding)) return false;
        this.bindings.set(command.binding, { network: command.network, location: command.location });
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
      case 'createClaim': {
        const key = `${CELL_OF[command.location]}/${command.claim}`;
        if (this.claims.has(key)) return false;
        this.claims.set(key, { ...command, mayHaveBound: false });
        break;
      }
      case 'deleteClaim': {
        const key = `${CELL_OF[command.location]}/${command.claim}`;
        const claim = this.claims.get(key);
        if (!claim) return false;
        if (claim.retain && claim.mayHaveBound) this.retainedMaybe.add(key);
        this.claims.delete(key);
        break;
      }
    }
    // A claim served at any moment may have bound then, whatever happens later.
    for (const [key, claim] of this.claims) {
      const l = LOCATIONS.find((x) => key.startsWith(`${CELL_OF[x]}/`))!;
      if (this.claimServed(claim, l)) claim.mayHaveBound = true;
    }
    return true;
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
      const l = LOCATIONS.find((x) => key.startsWith(`${CELL_OF[x]}/`))!;
      if (this.retainedMaybe.has(key)) bound.set(key, undefined);
      else if (this.claimServed(claim, l)) bound.set(key, true);
      else bound.set(key, claim.mayHaveBound ? undefined : false);
    }
    return bound;
  }
}

/** The fleet the model runs against, in this process. */
export interface ModelFleet extends FleetReader {
  H: string;
  stop(): Promise<void>;
}

export async function startModelFleet(): Promise<ModelFleet> {
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-model-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const fleet: Fleet = await startFleet({
    config: parseFleetConfig(chaosConfig(), 'chaos.yaml'),
    kubeconfigPath,
    port: 0,
    log: pino({ level: 'silent' }),
  });
  const parsed = parseKubeConfig(kubeconfigPath);
  const client = <T extends KubeObject>(context: string, id: ResourceId) =>
    resourceClient<T>(withContext(parsed, kubeconfigPath, context), id);
  let namespace: Any;
  for (let i = 0; i < 200 && !namespace; i++) {
    namespace = await client(PROJECT_CONTEXT, KINDS.namespaces).get('default');
    if (!namespace) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    H: hubNamespaceName(namespace.metadata.uid),
    client,
    async stop() {
      await fleet.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function setCondition(f: ModelFleet, id: ResourceId, name: string, type: string, status: boolean) {
  const platform = f.client<Any>('platform', id);
  const object = await platform.get(name);
  const conditions = (object.status?.conditions ?? []).filter((c: Any) => c.type !== type);
  conditions.push({
    type,
    status: status ? 'True' : 'False',
    reason: status ? type : `Not${type}`,
    message: `${type} is ${status}`,
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    observedGeneration: object.metadata.generation,
  });
  await platform.patchMerge(name, undefined, { status: { conditions } }, { subresource: 'status' });
}

const availabilityName = (l: Location) => `networking.datumapis.com--${l}`;

/** Sends one command to the fleet; a refusal the model predicted is expected. */
async function send(f: ModelFleet, prefix: string, command: Command): Promise<void> {
  const network = (n: number) => `${prefix}n${n}`;
  const networks = f.client<Any>(PROJECT_CONTEXT, KINDS.networks);
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
          network: { name: network(command.network) },
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
      await setCondition(f, KINDS.locations, command.location, 'Ready', command.ready);
      return;
    case 'serviceAvailable':
      await setCondition(
        f,
        SERVICE_AVAILABILITIES,
        availabilityName(command.location),
        'Available',
        command.available,
      );
      return;
    case 'createClaim':
      await f.client<Any>(CELL_OF[command.location], KINDS.claims).create({
        metadata: { name: `${prefix}c${command.claim}`, namespace: f.H },
        spec: {
          network: { name: network(command.network) },
          ipFamilies: command.families,
          reclaimPolicy: command.retain ? 'Retain' : 'Delete',
        },
      });
      return;
    case 'deleteClaim':
      await f.client<Any>(CELL_OF[command.location], KINDS.claims).delete(`${prefix}c${command.claim}`, f.H);
      return;
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

export interface SequenceOutcome {
  mismatches: string[];
  violations: string[];
  invariantChecks: number;
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
    const expected = model.apply(command);
    await send(f, prefix, command).catch((err) => {
      if (expected) throw new Error(`${JSON.stringify(command)} was refused: ${err.message}`, { cause: err });
    });
  }
  const deadline = Date.now() + settleMs;
  let found = await mismatches(f, prefix, model);
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    found = await mismatches(f, prefix, model);
  }
  const { violations, checks } = await settledInvariants(
    f,
    CHAOS_CELLS,
    Math.max(5000, deadline - Date.now()),
  );
  for (const l of LOCATIONS) {
    if (!model.locationReady[l]) await setCondition(f, KINDS.locations, l, 'Ready', true);
    if (!model.serviceAvailable[l])
      await setCondition(f, SERVICE_AVAILABILITIES, availabilityName(l), 'Available', true);
  }
  return { mismatches: found, violations, invariantChecks: checks };
}
