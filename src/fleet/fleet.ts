/**
 * The embedded fleet (`netpresence up`): one embedded API server serving the platform (root),
 * the hub, a project plane per Project and a plane per cell; every controller of
 * `netpresence manager`, one `netpresence cell` per cell and the propagation engine, each as
 * its own narrow identity; the platform stand-ins (project provisioner, hub-namespace
 * provisioner, cluster readiness, location projector) as the platform identity; and the
 * simulated data plane (data-plane.ts) as its status-only identities.
 *
 * Start order:
 * 1. the server and the static planes, with their CRDs and RBAC written in process;
 * 2. project planes of Projects already stored (a restart), so no controller meets a Ready
 *    Project whose plane is not served;
 * 3. the project provisioner, cluster readiness and the cells' Clusters; then the manager, the
 *    engine, the cells, the data plane and the other stand-ins side by side, in their worker, while
 * 4. a fresh data directory gets the config's objects (seed.ts) — ready means the default
 *    objects exist, not that every controller has converged on them.
 *
 * Threads: the server, the project provisioner and cluster readiness run on the fleet's main
 * thread (they compose planes in the server or ask it what it serves); the manager, the engine,
 * the cells, the data plane and the hub-namespace provisioner and location projector
 * (worker-stand-ins.ts) run in controller workers, threads of the same process
 * (controller-workers.ts), and reach the server only over HTTP, each as its own identity, on
 * the fleet's in-process transport (in-process-transport.ts: MessagePorts from the workers,
 * in-memory sockets on the main thread; no file descriptor per connection) — so the server and
 * the controllers each have a core, and a `kill -9` of the process ends them all. A worker that fails while the fleet runs fails the process, as an
 * uncaught error of a controller did when they shared the thread.
 *
 * Cells run with no configured location: a cell's identity is the ServingLocation the engine
 * carries to it, so moving a Cluster's location label moves the cell's identity with it.
 *
 * Stand-ins only (`standInsOnly`, `up --stand-ins-only`): steps 1, 2 and 4 and the stand-ins but
 * cluster readiness (the worker runs only the stand-ins' set), and nothing else — no manager,
 * engine, cell controllers or data plane, and no RBAC for the fleet's narrow identities, so that
 * `netpresence manager`, `propagator` and `cell` run as processes of their own under the roles of
 * config/rbac, applied by whoever runs them (the propagator then owns each Cluster's `Ready`, as
 * it does outside the fleet).
 *
 * Guarantees: the kubeconfig names every served plane from the moment `startFleet` resolves
 * (and follows project planes as they come and go); `stop()` stops the data plane, the cells,
 * the engine, the manager and the worker's stand-ins (one at a time, each in its worker), ends the
 * workers, then stops the main thread's stand-ins before the server, so nothing writes into a
 * closed plane; it is safe to call twice.
 */
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { SUPERUSER_GROUP } from '../apiserver/auth/rbac.ts';
import { ApiServer, ROOT_PLANE } from '../apiserver/server.ts';
import { projectKind, type Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import { connectContext, startControllers, StaticPlane } from '../runtime/manager-context.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import { systemClock } from '../runtime/clock.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { serveEndpoints } from '../runtime/endpoints.ts';
import { RequestDurations } from '../apiserver/request-durations.ts';
import { WriteCounter } from '../apiserver/write-counter.ts';
import type { EngagedPlane, PlaneRegistry } from '../runtime/planes.ts';
import { LOOPBACK_METRICS, setId, type ControllerSet } from './controller-sets.ts';
import { startControllerWorkers } from './controller-workers.ts';
import { crdsOfPlane, installPlaneCrds } from './bootstrap.ts';
import type { FleetConfig } from './config.ts';
import type { FleetContext } from './context.ts';
import { dataPlaneSet } from './data-plane.ts';
import { clusterReadiness } from './cluster-readiness.ts';
import { fleetTokens, PLATFORM_IDENTITY } from './identities.ts';
import { applyRbacBase } from './rbac-bases.ts';
import { renderKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import { KubeconfigWriter } from './kubeconfig-writer.ts';
import { planeKubeConfig, serialPlaneKubeConfig } from './plane-kubeconfig.ts';
import { serveInProcess, workerConnections } from './in-process-transport.ts';
import { projectProvisioner, provision } from './project-provisioner.ts';
import { isSeeded, seedClusters, seedFleet } from './seed.ts';

export const HUB_PLANE = 'hub';
export { MANAGER_LEASE_IDENTITY } from './controller-sets.ts';
/** How long seeding waits for a configured project's plane. */
export const PROVISION_TIMEOUT_MS = 60_000;

export const fleetMessages = {
  notProvisioned: (project: string) =>
    `project ${project} was not provisioned within ${PROVISION_TIMEOUT_MS / 1000} s: see the fleet's log`,
};

export interface FleetOptions {
  config: FleetConfig;
  kubeconfigPath: string;
  dataDir?: string;
  host?: string;
  port?: number;
  log: Logger;
  /** Append an audit.k8s.io/v1 Event per request here (`--audit-log`). */
  auditLog?: string;
  /** Serve the planes and the platform stand-ins only (see above). */
  standInsOnly?: boolean;
  /**
   * False: the fleet leaves each Cluster's `Ready` to whoever writes it (a test turning a cell
   * unready, as propagation.md §1.2 lets tests do); default true.
   */
  clusterReadiness?: boolean;
}

export interface Fleet {
  server: ApiServer;
  kubeconfigPath: string;
  /** `https://host:port` of the server. */
  url: string;
  /**
   * A kubeconfig (YAML) whose contexts `platform`, `hub` and one per cell read as the dashboard's
   * read-only identity; project planes are reached under `platform`.
   */
  readOnlyKubeconfig(): string;
  /**
   * The `/metrics` URLs (loopback, ephemeral ports) of the controller workers: the manager's, each
   * cell's, and one per worker for its propagation engine's, data plane's and stand-ins' controllers.
   */
  metricsUrls: string[];
  /**
   * The `/metrics` URL of the fleet's main thread: the project provisioner's and cluster
   * readiness' controllers and the API server's writes by plane and identity (one series per
   * plane and writer: not for scraping every second, as the dashboard scrapes `metricsUrls`).
   */
  fleetMetricsUrl: string;
  stop(): Promise<void>;
}

/** Step 1: the platform, hub and cell planes with their CRDs and (unless `crdsOnly`) RBAC. */
function composeStaticPlanes(server: ApiServer, config: FleetConfig, crdsOnly: boolean): void {
  server.addPlane(HUB_PLANE);
  for (const cell of config.cells) server.addPlane(cell.name);
  installPlaneCrds(server.plane(ROOT_PLANE)!, crdsOfPlane.platform);
  installPlaneCrds(server.plane(HUB_PLANE)!, crdsOfPlane.hub);
  for (const cell of config.cells) installPlaneCrds(server.plane(cell.name)!, crdsOfPlane.cell);
  if (crdsOnly) return;
  // The fleet's identities get config/rbac's roles, as a deployment applies them (identities.ts).
  applyRbacBase(server.plane(ROOT_PLANE)!, 'platform');
  applyRbacBase(server.plane(HUB_PLANE)!, 'hub');
  for (const cell of config.cells) applyRbacBase(server.plane(cell.name)!, 'cell');
}

/** Resolves with the project's plane once it is engaged (provisioned and Ready). */
function engagedPlane(projects: PlaneRegistry, project: string): Promise<EngagedPlane> {
  return new Promise((resolve, reject) => {
    let found = false;
    // The registry tells a new listener of planes engaged already, possibly before `subscribe`
    // has returned: unsubscribing waits for that.
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(fleetMessages.notProvisioned(project)));
    }, PROVISION_TIMEOUT_MS);
    const unsubscribe = projects.subscribe({
      engaged: (plane) => {
        if (plane.project !== project || found) return;
        found = true;
        clearTimeout(timer);
        resolve(plane);
        queueMicrotask(() => unsubscribe());
      },
    });
  });
}

/** Step 4: the config's objects, on a data directory that has not been seeded. */
async function seedOnce(ctx: FleetContext): Promise<void> {
  if (await isSeeded(ctx.platform)) return;
  await seedFleet(
    {
      platform: ctx.platform,
      hub: ctx.hub,
      projectPlane: async (project) => {
        const plane = await engagedPlane(ctx.projects, project);
        return new StaticPlane(plane.name, plane.kubeConfig, ctx.clock, ctx.log);
      },
    },
    ctx.config,
  );
}

/**
 * The stand-ins that need only the API (worker-stand-ins.ts) and — unless `standInsOnly` — the
 * manager, the engine, the cells and the data plane, in a controller worker
 * (controller-workers.ts), each as its identity over the in-process transport.
 */
async function startControllerSets(
  ctx: FleetContext,
  tokens: { manager: string; platform: string },
  cellTokens: Map<string, string>,
  cellAbroadTokens: Map<string, string>,
): Promise<{ metricsUrls: string[]; stop(): Promise<void> }> {
  const { server, log } = ctx;
  const serial = (plane: string, token: string) => serialPlaneKubeConfig(server, plane, token);
  const standIns: ControllerSet = {
    kind: 'standIns',
    platform: serial(ROOT_PLANE, tokens.platform),
    hub: serial(HUB_PLANE, tokens.platform),
  };
  const narrow = ctx.standInsOnly ? [] : narrowSets(ctx, tokens, cellTokens, cellAbroadTokens);
  // One worker for them all: the server's thread is the busier one (bench/README.md, bench/fleet),
  // and each worker costs a V8 heap and its own copy of the modules. Its metrics URLs come in the
  // sets' order, the manager's first.
  const workers = await startControllerWorkers([{ name: 'controllers', sets: [...narrow, standIns] }], log, {
    connections: () => workerConnections(server),
  });
  // The data plane, the cells, the engine, the manager, then the stand-ins.
  const stopOrder = [...narrow.toReversed(), standIns].map(setId);
  return { metricsUrls: workers.metricsUrls, stop: () => workers.stop(stopOrder) };
}

/** The manager, the engine, the cells and the data plane, each as its narrow identity. */
function narrowSets(
  ctx: FleetContext,
  tokens: { manager: string; platform: string },
  cellTokens: Map<string, string>,
  cellAbroadTokens: Map<string, string>,
): ControllerSet[] {
  const { server, config } = ctx;
  const propagatorToken = fleetTokens.propagator(server);
  const serial = (plane: string, token: string) => serialPlaneKubeConfig(server, plane, token);
  const manager: ControllerSet = {
    kind: 'manager',
    hub: serial(HUB_PLANE, tokens.manager),
    platform: serial(ROOT_PLANE, tokens.manager),
  };
  const engine: ControllerSet = {
    kind: 'engine',
    hub: serial(HUB_PLANE, propagatorToken),
    members: Object.fromEntries(config.cells.map((cell) => [cell.name, serial(cell.name, propagatorToken)])),
  };
  const cells = config.cells
    .filter((cell) => cell.controllers !== false)
    .map((cell): ControllerSet => {
      const abroad = cellAbroadTokens.get(cell.name)!;
      return {
        kind: 'cell',
        name: cell.name,
        cell: serial(cell.name, cellTokens.get(cell.name)!),
        ipam: serial(ROOT_PLANE, abroad),
        hub: serial(HUB_PLANE, abroad),
      };
    });
  const dataPlane = dataPlaneSet(server, config, tokens.platform);
  return [manager, engine, ...cells, ...(dataPlane ? [dataPlane] : [])];
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const { config, log } = options;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const clock = systemClock;
  // The stand-ins', data plane's and propagation engine's controller metrics, and the server's
  // writes by identity, served beside the manager's and the cells'.
  const metrics = new RuntimeMetrics(new Registry());
  const server = await ApiServer.start({
    host: options.host,
    port: options.port,
    dataDir: options.dataDir,
    auditLog: options.auditLog,
    log: log.child({ component: 'apiserver' }),
    plane: { writeCounter: new WriteCounter(metrics.registry) },
    requestDurations: new RequestDurations(metrics.registry),
  });
  // The stand-ins' clients, on this thread, report their requests' latency here.
  const stopObservingRequests = metrics.observeClientRequests();
  // Every controller set is in this process: its clients reach the server without TLS or a
  // socket (in-process-transport.ts, plane-kubeconfig.ts).
  const inProcess = serveInProcess(server);
  const standInsOnly = options.standInsOnly ?? false;
  composeStaticPlanes(server, config, standInsOnly);

  const cellTokens = new Map(config.cells.map((cell) => [cell.name, fleetTokens.cell(server, cell.name)]));
  const platformToken = server.createIdentity(PLATFORM_IDENTITY, [SUPERUSER_GROUP]);
  const managerToken = fleetTokens.manager(server);
  const dashboardToken = fleetTokens.dashboard(server);
  const cellAbroadTokens = new Map(
    config.cells.map((cell) => [cell.name, fleetTokens.cellAbroad(server, cell.name)]),
  );
  const kubeconfig = new KubeconfigWriter(options.kubeconfigPath, server, cellTokens, cellAbroadTokens);

  const connected = connectContext({
    platform: planeKubeConfig(server, ROOT_PLANE, platformToken),
    hub: planeKubeConfig(server, HUB_PLANE, platformToken),
    clock,
    log,
    metrics,
  });
  const { platform, hub } = connected;
  const ctx: FleetContext = {
    ...connected,
    server,
    config,
    kubeconfig,
    projectPlanes: new Map(),
    standInsOnly,
  };

  // Step 2: a restart reopens the planes of stored Projects before anyone engages them.
  const stored = await platform.client<Project>(resourceIdOf(projectKind)).list();
  for (const project of stored.items)
    if (!project.metadata.deletionTimestamp) provision(project.metadata.name!, project.metadata.uid!, ctx);
  await kubeconfig.write();

  // Step 3: the stand-ins that compose planes or ask the server, then every controller set.
  const standIns = await startControllers(ctx, [
    projectProvisioner,
    ...(standInsOnly || options.clusterReadiness === false ? [] : [clusterReadiness]),
  ]);
  await seedClusters(hub, config.cells);
  log.info({ ms: elapsed() }, 'planes and platform stand-ins are up');

  // The controller sets start side by side, and a fresh data directory is seeded meanwhile.
  const seeded = seedOnce(ctx);
  seeded.catch(() => undefined); // awaited below, once the controller sets are up
  const controllerSets = await startControllerSets(
    ctx,
    { manager: managerToken, platform: platformToken },
    cellTokens,
    cellAbroadTokens,
  );
  log.info(
    { ms: elapsed() },
    standInsOnly ? 'stand-ins are up' : 'manager, propagation engine, cells and stand-ins are up',
  );
  const fleetEndpoints = await serveEndpoints({ metricsAddr: LOOPBACK_METRICS, metrics, ready: () => true });
  await seeded;
  log.info({ ms: elapsed() }, 'the fleet is seeded');

  let stopping: Promise<void> | undefined;
  return {
    server,
    kubeconfigPath: options.kubeconfigPath,
    url: server.url(ROOT_PLANE),
    metricsUrls: controllerSets.metricsUrls,
    fleetMetricsUrl: `${fleetEndpoints.metricsUrl!}/metrics`,
    readOnlyKubeconfig: () =>
      renderKubeconfig(
        server.certificates.caCertPem,
        [
          { name: 'platform', server: server.url(ROOT_PLANE), token: dashboardToken },
          { name: HUB_PLANE, server: server.url(HUB_PLANE), token: dashboardToken },
          ...config.cells.map((cell) => ({
            name: cell.name,
            server: server.url(cell.name),
            token: dashboardToken,
          })),
        ],
        'platform',
      ),
    stop() {
      stopping ??= (async () => {
        await fleetEndpoints.close();
        await controllerSets.stop();
        await standIns.stop();
        await server.stop();
        inProcess.close();
        stopObservingRequests();
      })();
      return stopping;
    },
  };
}
