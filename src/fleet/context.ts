/**
 * What the platform stand-ins of the fleet's main thread reach: the planes every controller
 * reaches (`ConnectedContext`, as the platform identity, planes of the fleet's own), plus the
 * embedded API server they compose planes in, the fleet's config, its kubeconfig writer and the
 * project planes it serves.
 */
import type { ApiServer } from '../apiserver/server.ts';
import type { ConnectedContext } from '../runtime/manager-context.ts';
import type { FleetConfig } from './config.ts';
import type { KubeconfigWriter } from './kubeconfig-writer.ts';

export interface FleetContext extends ConnectedContext {
  server: ApiServer;
  config: FleetConfig;
  kubeconfig: KubeconfigWriter;
  /** Each served project plane: the uid of the Project it belongs to and its consumer's token. */
  projectPlanes: Map<string, ProjectPlane>;
  /** No RBAC for the fleet's narrow identities: their processes run apart (fleet.ts). */
  standInsOnly?: boolean;
}

export interface ProjectPlane {
  uid: string;
  consumerToken: string;
}
