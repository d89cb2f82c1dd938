/**
 * The Ready probe of a standalone engine (propagation.md §1.2): every 10 s on the injectable
 * clock it asks each Push member `GET /readyz` (then `GET /healthz` when `/readyz` answers 404)
 * and writes the Cluster's `Ready` condition from the answer.
 *
 * Guarantees:
 * - 200 → `True/ClusterReady`; any other answer → `False/ClusterNotReady`; no answer (refused,
 *   reset, unreachable access, or nothing within `PROBE_TIMEOUT_MS`) → `False/ClusterNotReachable`,
 *   each with the message of cluster.ts;
 * - the first outcome this engine observes for a Cluster is written at once; afterwards a
 *   changed outcome is written only once it has persisted for 30 s (`PERSISTENCE_MS`), and a
 *   probe that agrees with the condition cancels any pending change;
 * - `lastTransitionTime` moves only when the status changes; nothing is written when the
 *   condition already says what the probe found;
 * - Pull clusters and Clusters being deleted are not probed; inside the embedded fleet (mode
 *   `embedded`) nothing is probed at all — the fleet owns `Ready` there.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  clusterMessages,
  ClusterConditionType,
  ClusterReason,
  type Cluster,
} from '../../apis/cluster/v1alpha1/cluster.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { findCondition, setCondition, type DesiredCondition } from '../../runtime/conditions.ts';
import type { Clock } from '../../runtime/clock.ts';
import { after, type Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { forObject, generationChanged } from '../../runtime/triggers.ts';
import type { EngineContext, MemberDirectory } from '../engine-context.ts';
import { engineController, nameKeys } from '../engine-controller.ts';
import { isDeleting, isPull } from './cluster-state.ts';
import { CLUSTERS } from './execution.ts';

export const name = 'cluster-health';

export const PROBE_INTERVAL_MS = 10_000;
export const PERSISTENCE_MS = 30_000;
export const PROBE_TIMEOUT_MS = 5_000;

export type ProbeOutcome = 'ready' | 'notReady' | 'notReachable';

const READY_CONDITIONS: Record<ProbeOutcome, DesiredCondition> = {
  ready: {
    type: ClusterConditionType.Ready,
    status: 'True',
    reason: ClusterReason.ClusterReady,
    message: clusterMessages.ready,
  },
  notReady: {
    type: ClusterConditionType.Ready,
    status: 'False',
    reason: ClusterReason.ClusterNotReady,
    message: clusterMessages.notReady,
  },
  notReachable: {
    type: ClusterConditionType.Ready,
    status: 'False',
    reason: ClusterReason.ClusterNotReachable,
    message: clusterMessages.notReachable,
  },
};

/** The HTTP status of `GET <server><path>`, or undefined when the member does not answer. */
async function statusOf(kubeConfig: KubeConfig, path: string, clock: Clock): Promise<number | undefined> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) return undefined;
  const abort = new AbortController();
  const timer = clock.setTimeout(() => abort.abort(), PROBE_TIMEOUT_MS);
  try {
    const url = new URL(server.replace(/\/+$/, '') + path);
    const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'text/plain' } };
    await kubeConfig.applyToHTTPSOptions(options);
    const transport = url.protocol === 'http:' ? http : https;
    return await new Promise<number | undefined>((resolve) => {
      const request = transport.request(url, { ...options, signal: abort.signal }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on('error', () => resolve(undefined));
      request.end();
    });
  } catch {
    return undefined;
  } finally {
    clock.clearTimeout(timer);
  }
}

/** One probe: `/readyz`, falling back to `/healthz` when `/readyz` answers 404. */
export async function probe(kubeConfig: KubeConfig, clock: Clock): Promise<ProbeOutcome> {
  let status = await statusOf(kubeConfig, '/readyz', clock);
  if (status === 404) status = await statusOf(kubeConfig, '/healthz', clock);
  if (status === undefined) return 'notReachable';
  return status === 200 ? 'ready' : 'notReady';
}

export interface HealthDeps {
  clusters: ObjectStore<Cluster>;
  clustersClient: ResourceClient<Cluster>;
  members: MemberDirectory;
  clock: Clock;
}

/** What the probe remembers between rounds, per cluster. */
export interface HealthMemory {
  observed: Set<string>;
  pending: Map<string, { outcome: ProbeOutcome; since: number }>;
}

export async function reconcile(
  clusterName: string,
  deps: HealthDeps,
  memory: HealthMemory,
): Promise<Outcome> {
  const cluster = deps.clusters.get(undefined, clusterName);
  if (!cluster || isPull(cluster) || isDeleting(cluster)) {
    memory.observed.delete(clusterName);
    memory.pending.delete(clusterName);
    return done();
  }
  const outcome = await deps.members
    .plane(cluster)
    .then((plane) => probe(plane.kubeConfig, deps.clock))
    .catch((): ProbeOutcome => 'notReachable');
  if (shouldWrite(clusterName, cluster, outcome, memory, deps.clock.now()))
    await write(cluster, outcome, deps);
  return after(PROBE_INTERVAL_MS);
}

/** The first observation at once; a change once it has persisted for PERSISTENCE_MS. */
function shouldWrite(
  clusterName: string,
  cluster: Cluster,
  outcome: ProbeOutcome,
  memory: HealthMemory,
  now: number,
): boolean {
  const desired = READY_CONDITIONS[outcome];
  const held = findCondition(cluster.status?.conditions, ClusterConditionType.Ready);
  const agrees =
    held?.status === desired.status && held.reason === desired.reason && held.message === desired.message;
  if (!memory.observed.has(clusterName)) {
    memory.observed.add(clusterName);
    memory.pending.delete(clusterName);
    return !agrees;
  }
  if (agrees) {
    memory.pending.delete(clusterName);
    return false;
  }
  const pending = memory.pending.get(clusterName);
  if (pending?.outcome !== outcome) {
    memory.pending.set(clusterName, { outcome, since: now });
    return false;
  }
  if (now - pending.since < PERSISTENCE_MS) return false;
  memory.pending.delete(clusterName);
  return true;
}

async function write(cluster: Cluster, outcome: ProbeOutcome, deps: HealthDeps): Promise<void> {
  const conditions = setCondition(
    cluster.status?.conditions,
    READY_CONDITIONS[outcome],
    undefined,
    deps.clock.now(),
  );
  await deps.clustersClient.patchMerge(
    cluster.metadata.name!,
    undefined,
    { status: { conditions } },
    { subresource: 'status' },
  );
}

export const healthProbeController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<string> {
    const memory: HealthMemory = { observed: new Set(), pending: new Map() };
    const clusters = ctx.hub.informer<Cluster>(CLUSTERS);
    const deps: HealthDeps = {
      clusters: clusters.store,
      clustersClient: ctx.hub.client<Cluster>(CLUSTERS),
      members: ctx.members,
      clock: ctx.clock,
    };
    return engineController(ctx, {
      name,
      reconcile: (clusterName) => reconcile(clusterName, deps, memory),
      ...nameKeys,
      workers: 4,
      // Status writes (this probe's own) do not wake it: it runs on its interval.
      triggers:
        ctx.mode === 'standalone'
          ? [forObject(clusters, (cluster) => cluster.metadata.name!, generationChanged)]
          : [],
    });
  },
};
