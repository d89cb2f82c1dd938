/**
 * The member side of the propagation engine (propagation.md §0.1): the controllers that reach
 * member clusters — cluster (execution spaces, the cluster finalizer), namespace sync, execution
 * (apply, drift, deletion) and, in standalone mode, the Ready probe — and the two ways of
 * reaching members. The hub side (engine.ts) runs `memberControllers` beside its own, with the
 * same EngineContext; the two sides meet only in the hub's Work objects.
 */
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import type { EngineContext } from '../engine-context.ts';
import { clusterController } from './cluster.ts';
import { executionController } from './execution.ts';
import { healthProbeController } from './health-probe.ts';
import { namespaceSyncController } from './namespace-sync.ts';

export { embeddedMembers, standaloneMembers, memberErrors } from './members.ts';

export const memberControllers: ControllerDefinition<EngineContext>[] = [
  clusterController,
  namespaceSyncController,
  executionController,
  healthProbeController,
];
