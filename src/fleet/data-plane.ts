/**
 * The simulated data plane of the embedded fleet (controllers.md §14): one interface controller
 * per cell and one Subnet controller over every project plane, all as the data plane's status
 * writer of config/rbac (`netpresence-dataplane`: in each cell a token that cell alone accepts,
 * in project planes one they alone accept). With `dataPlane.mode: none` nothing runs and nothing
 * sets `Prepared` or `Programmed`.
 *
 * The fleet describes it as plain data (`dataPlaneSet`: the config and a kubeconfig per plane and
 * identity) so that it runs in a controller worker (controller-workers.ts) beside the other
 * controller sets; `startDataPlane` starts it from that description.
 *
 * Guarantees: every client here carries a data-plane identity, whose RBAC allows reading
 * interfaces, claims and Subnets and writing their status only
 * (config/rbac/{cell,project}/dataplane.yaml) — but for the Projects informer, which reads as the
 * platform identity, as the fleet's stand-ins do, to learn which project planes there are;
 * `stop()` stops the controllers, then their informers and planes, and is safe to call twice.
 */
import type { Logger } from 'pino';
import type { ApiServer } from '../apiserver/server.ts';
import { ROOT_PLANE } from '../apiserver/server.ts';
import type { Clock } from '../runtime/clock.ts';
import { StaticPlane } from '../runtime/manager-context.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import type { TermWork } from '../runtime/run-while-leading.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type ProjectLike } from '../runtime/planes.ts';
import type { CellConfig, DataPlaneConfig, FleetConfig } from './config.ts';
import { interfaceDataPlane } from './data-plane-interfaces.ts';
import { subnetDataPlane } from './data-plane-subnets.ts';
import { kubeConfigOf, serialPlaneKubeConfig, type SerialKubeConfig } from './plane-kubeconfig.ts';
import { fleetTokens } from './identities.ts';

export interface DataPlane {
  stop(): Promise<void>;
}

/** The data plane as plain data: its config and, per plane and identity, a serialised kubeconfig. */
export interface DataPlaneSet {
  kind: 'dataPlane';
  config: DataPlaneConfig;
  cells: { name: string; location?: string; subnets: SerialKubeConfig; interfaces: SerialKubeConfig }[];
  /** The platform plane as the platform identity: which Projects there are. */
  projects: SerialKubeConfig;
  /** The platform plane as `netpresence-dataplane`: project planes are reached under it. */
  subnets: SerialKubeConfig;
}

/** The data plane's identities, created in `server`; undefined with `dataPlane.mode: none`. */
export function dataPlaneSet(
  server: ApiServer,
  config: FleetConfig,
  platformToken: string,
): DataPlaneSet | undefined {
  if (config.dataPlane.mode === 'none') return undefined;
  const serial = (plane: string, token: string) => serialPlaneKubeConfig(server, plane, token);
  return {
    kind: 'dataPlane',
    config: config.dataPlane,
    cells: config.cells.map((cell: CellConfig) => {
      const inCell = serial(cell.name, fleetTokens.dataPlaneCell(server, cell.name));
      return { name: cell.name, location: cell.location, subnets: inCell, interfaces: inCell };
    }),
    projects: serial(ROOT_PLANE, platformToken),
    subnets: serial(ROOT_PLANE, fleetTokens.dataPlaneProjects(server)),
  };
}

export async function startDataPlane(
  set: DataPlaneSet,
  clock: Clock,
  fleetLog: Logger,
  metrics: RuntimeMetrics,
): Promise<DataPlane> {
  const log = fleetLog.child({ component: 'dataplane' });
  const planes: StaticPlane[] = [];
  const controllers: TermWork[] = [];

  const subnetCells = set.cells.map((cell) => {
    const plane = new StaticPlane(cell.name, kubeConfigOf(cell.subnets), clock, log);
    planes.push(plane);
    return { plane, location: cell.location };
  });
  const platform = new StaticPlane('platform', kubeConfigOf(set.projects), clock, log);
  planes.push(platform);
  const subnets = kubeConfigOf(set.subnets);
  const projects = new PlaneRegistry({
    projects: platform.informer<ProjectLike>(PROJECTS),
    kubeConfigFor: (project) => projectKubeConfig(subnets, project),
    log,
    clock,
  });
  controllers.push(subnetDataPlane({ projects, cells: subnetCells, clock, log, metrics }));
  for (const cell of set.cells) {
    const plane = new StaticPlane(cell.name, kubeConfigOf(cell.interfaces), clock, log);
    planes.push(plane);
    controllers.push(
      interfaceDataPlane({ cell: plane, location: cell.location, config: set.config, clock, log, metrics }),
    );
  }
  projects.start();
  await Promise.all(planes.map((plane) => plane.synced()));
  for (const controller of controllers) await controller.start();
  log.info({ cells: set.cells.length, delayMs: set.config.delayMs }, 'simulated data plane is up');

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        for (const controller of controllers) await controller.stop();
        await projects.stop();
        await Promise.all(planes.map((plane) => plane.close()));
      })();
      return stopping;
    },
  };
}
