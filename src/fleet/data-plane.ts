/**
 * The simulated data plane of the embedded fleet (controllers.md §14): one interface controller
 * per cell and one Subnet controller over every project plane, all as the data plane's status
 * writer of config/rbac (`netpresence-dataplane`: in each cell a token that cell alone accepts,
 * in project planes one they alone accept). With `dataPlane.mode: none` nothing runs and nothing sets
 * `Prepared` or `Programmed`.
 *
 * Guarantees: every client and informer here carries a data-plane identity, whose RBAC allows
 * reading interfaces, claims and Subnets and writing their status only
 * (config/rbac/{cell,project}/dataplane.yaml); `stop()`
 * stops the controllers, then their informers and project planes, and is safe to call twice.
 */
import { ROOT_PLANE } from '../apiserver/server.ts';
import { StaticPlane } from '../runtime/manager-context.ts';
import type { TermWork } from '../runtime/run-while-leading.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type ProjectLike } from '../runtime/planes.ts';
import type { FleetContext } from './context.ts';
import { interfaceDataPlane } from './data-plane-interfaces.ts';
import { subnetDataPlane } from './data-plane-subnets.ts';
import { planeKubeConfig } from './plane-kubeconfig.ts';
import { fleetTokens } from './identities.ts';

export interface DataPlane {
  stop(): Promise<void>;
}

export async function startDataPlane(ctx: FleetContext): Promise<DataPlane> {
  const { server, config, clock } = ctx;
  if (config.dataPlane.mode === 'none') return { stop: async () => undefined };
  const log = ctx.log.child({ component: 'dataplane' });
  const cellTokens = new Map(
    config.cells.map((cell) => [cell.name, fleetTokens.dataPlaneCell(server, cell.name)]),
  );
  const projectsKubeConfig = planeKubeConfig(server, ROOT_PLANE, fleetTokens.dataPlaneProjects(server));
  const planes: StaticPlane[] = [];
  const controllers: TermWork[] = [];

  const subnetCells = config.cells.map((cell) => {
    const token = cellTokens.get(cell.name)!;
    const plane = new StaticPlane(cell.name, planeKubeConfig(server, cell.name, token), clock, log);
    planes.push(plane);
    return { plane, location: cell.location };
  });
  const projects = new PlaneRegistry({
    projects: ctx.platform.informer<ProjectLike>(PROJECTS),
    kubeConfigFor: (project) => projectKubeConfig(projectsKubeConfig, project),
    log,
    clock,
  });
  controllers.push(subnetDataPlane({ projects, cells: subnetCells, clock, log, metrics: ctx.metrics }));
  for (const cell of config.cells) {
    const token = cellTokens.get(cell.name)!;
    const plane = new StaticPlane(cell.name, planeKubeConfig(server, cell.name, token), clock, log);
    planes.push(plane);
    controllers.push(
      interfaceDataPlane({
        cell: plane,
        location: cell.location,
        config: config.dataPlane,
        clock,
        log,
        metrics: ctx.metrics,
      }),
    );
  }
  projects.start();
  await Promise.all(planes.map((plane) => plane.synced()));
  for (const controller of controllers) await controller.start();
  log.info({ cells: config.cells.length, delayMs: config.dataPlane.delayMs }, 'simulated data plane is up');

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
