/**
 * The propagation engine (propagation.md §0.1): every component — policy, detector, scheduler,
 * binding sync and status on the hub side, and the member side's execution, namespace sync and
 * cluster controllers — on one hub plane, reaching members through a MemberDirectory.
 *
 * Guarantees: controllers start only after the hub informers they asked for have listed, and
 * every informer's first list reconciles every object it holds (as after every relist), so all
 * rules hold after a start. No leader election happens here: `netpresence propagator` runs it
 * under its Lease, the fleet directly. `stop()` stops every controller, the template informers,
 * the hub informers and the member directory. Given the `signal` of a Lease term, a start still
 * waiting for the hub's first lists when the term ends starts no controller: it stops what it
 * built and resolves with a stopped engine (a lost term's engine never reconciles).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { StaticPlane } from '../runtime/manager-context.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { termEnded } from '../runtime/leader-election.ts';
import type { RunnableController } from '../runtime/controller.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { bindingSyncController } from './binding-sync.ts';
import { detectorController } from './detector.ts';
import type { EngineContext, EngineMode, MemberDirectory } from './engine-context.ts';
import { closeHubView } from './hub-view.ts';
import { KindResolver } from './kinds.ts';
import { memberControllers } from './member/index.ts';
import { policyController } from './policy.ts';
import { schedulerController } from './scheduler.ts';
import { statusController } from './status.ts';

/** The hub-side components, in the order §0.1 lists them. */
export const hubControllers: ControllerDefinition<EngineContext>[] = [
  policyController,
  detectorController,
  schedulerController,
  bindingSyncController,
  statusController,
];

export interface EngineOptions {
  mode: EngineMode;
  hub: KubeConfig;
  /** How members are reached; a function is given the engine's hub plane (standaloneMembers reads Secrets there). */
  members: MemberDirectory | ((hub: StaticPlane) => MemberDirectory);
  log: Logger;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** The Lease term the engine runs for (netpresence propagator); none: it runs until stopped. */
  signal?: AbortSignal;
}

export interface Engine {
  ctx: EngineContext;
  stop(): Promise<void>;
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const clock = options.clock ?? systemClock;
  const hub = new StaticPlane('hub', options.hub, clock, options.log);
  const ctx: EngineContext = {
    mode: options.mode,
    hub,
    members: typeof options.members === 'function' ? options.members(hub) : options.members,
    kinds: new KindResolver(),
    clock,
    log: options.log,
    metrics: options.metrics ?? new RuntimeMetrics(),
  };
  const controllers: RunnableController[] = [...hubControllers, ...memberControllers].map((definition) =>
    definition.build(ctx),
  );
  const { signal } = options;
  try {
    await (signal ? Promise.race([hub.synced(), termEnded(signal)]) : hub.synced());
    if (!signal?.aborted) for (const controller of controllers) await controller.start();
  } catch (err) {
    await stopAll(ctx, hub, controllers);
    throw err;
  }
  if (signal?.aborted) {
    await stopAll(ctx, hub, controllers);
    options.log.info({ mode: options.mode }, 'the term ended before the propagation engine started');
    return { ctx, stop: () => Promise.resolve() };
  }
  options.log.info({ mode: options.mode }, 'propagation engine started');
  return { ctx, stop: () => stopAll(ctx, hub, controllers) };
}

async function stopAll(
  ctx: EngineContext,
  hub: StaticPlane,
  controllers: RunnableController[],
): Promise<void> {
  for (const controller of controllers) await controller.stop();
  await closeHubView(ctx);
  await hub.close();
  await ctx.members.close();
}
