/**
 * The platform stand-ins that need nothing but the API — the hub-namespace provisioner and the
 * location projector — as a controller set (controller-sets.ts), so that they run in the fleet's
 * controller worker, off the API server's thread, as the platform identity over the same clients
 * as every other set. The stand-ins that compose planes in the server itself (the project
 * provisioner) or ask it which cells it serves (cluster readiness) stay on the server's thread
 * (fleet.ts).
 *
 * Why here: a thousand projects' LocationBindings are ten thousand creates and as many status
 * writes while the fleet starts; from the server's thread their clients (HTTP over in-memory
 * sockets, informers, reconciles) took the thread the server needed (bench/README.md, session 15).
 *
 * Guarantees: the controllers start once the platform and hub informers they asked for have
 * listed and every engaged project plane has been taken up; `stop()` stops them, disengages every
 * project plane and closes every informer.
 */
import type { Logger } from 'pino';
import { systemClock } from '../runtime/clock.ts';
import { connectContext, startControllers, type RunningControllers } from '../runtime/manager-context.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import { hubNamespaceProvisioner } from './hub-namespaces.ts';
import { locationProjector } from './location-projector.ts';
import { kubeConfigOf, type SerialKubeConfig } from './plane-kubeconfig.ts';

export interface StandInsSet {
  kind: 'standIns';
  /** The platform plane as the platform identity; project planes are reached under it. */
  platform: SerialKubeConfig;
  /** The hub as the platform identity. */
  hub: SerialKubeConfig;
}

export async function startWorkerStandIns(
  set: StandInsSet,
  log: Logger,
  metrics: RuntimeMetrics,
): Promise<RunningControllers> {
  const ctx = connectContext({
    platform: kubeConfigOf(set.platform),
    hub: kubeConfigOf(set.hub),
    clock: systemClock,
    log: log.child({ component: 'stand-ins' }),
    metrics,
  });
  return startControllers(ctx, [hubNamespaceProvisioner, locationProjector]);
}
