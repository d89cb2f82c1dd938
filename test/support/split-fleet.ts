/**
 * The fleet split apart, as on real clusters: `netpresence up --stand-ins-only` serves the planes
 * and the platform stand-ins (with an audit log), config/crd and config/rbac are applied to every
 * plane with kubectl, tokens are minted with `kubectl create token`, and `netpresence manager`,
 * `netpresence propagator` and one `netpresence cell` per cell run as child processes whose
 * kubeconfigs hold only those tokens. The propagator reaches each cell through its hub Cluster's
 * `spec.secretRef`, a kubeconfig Secret holding its own token for that cell.
 *
 * Guarantees: `startSplitFleet` resolves once every process serves its endpoints; `restart(name)`
 * starts one process again on the same kubeconfigs and `kill(name, signal)` stops one alone, so a
 * test can crash each process separately; `dispose()` kills what still runs, then stops the planes.
 * With `restartableServer`, `up` keeps its planes in `<dir>/data` and, once started on a free
 * port, is started again on that same port, so `kill('apiserver')` and `restart('apiserver')`
 * crash and restart the API server (with its stand-ins) in place: the processes' tokens are signed
 * with the data directory's key and stay valid, and the processes reconnect on their own.
 * Each process's output (the API server's too, after its ready line) is kept in `<dir>/logs`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { createWriteStream, readFileSync } from 'node:fs';
import { renderKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { cellServiceAccountUser } from '../../src/fleet/identities.ts';
import { startChildFleet, type ChildFleet } from './fleet.ts';
import { auditEvents } from './rbac-audit.ts';
import { startCellProcess, startProcess, type RunningProcess } from './process.ts';

export const CONFIG_DIR = resolve(import.meta.dirname, '../../config');
export const SYSTEM_NAMESPACE = 'netpresence-system';
export const CELLS_NAMESPACE = 'netpresence-cells';
/** Where the propagator's member kubeconfig Secrets live on the hub (Karmada's namespace for them). */
export const MEMBER_SECRETS_NAMESPACE = 'karmada-cluster';

/** A process prints where it serves once its informers synced: a refused list holds it back. */
const START_WITHIN = 60_000;

export const serviceAccountUser = (namespace: string, name: string) =>
  `system:serviceaccount:${namespace}:${name}`;

/** The users each process acts as, by plane kind. */
export const SPLIT_IDENTITIES = {
  manager: serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-manager'),
  propagator: serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-propagator'),
  /** A cell in its own plane. */
  cell: serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-cell'),
  /** Cell C on the hub and in project planes. */
  cellAbroad: cellServiceAccountUser,
};

export interface SplitFleetOptions {
  /** Fleet config YAML (its cells are served without controllers: the processes run apart). */
  config: string;
  cells: string[];
  projects: string[];
  dir: string;
  /** Keep `up`'s planes in `<dir>/data` and reuse its port, so `apiserver` can be restarted. */
  restartableServer?: boolean;
}

/** The name `kill` and `restart` know `netpresence up --stand-ins-only` by. */
export const APISERVER = 'apiserver';

export interface SplitFleet {
  /** The running `up` (another object after `restart('apiserver')`, on the same kubeconfig). */
  readonly fleet: ChildFleet;
  auditLog: string;
  processes: Map<string, RunningProcess>;
  /** Starts process `name` (`manager`, `propagator`, a cell's name, or `apiserver`) again. */
  restart(name: string): Promise<unknown>;
  /** Sends `signal` to process `name`; resolves with its exit code. */
  kill(name: string, signal?: NodeJS.Signals): Promise<number | null>;
  dispose(): Promise<void>;
}

/** The requests refused 401 or 403 in the audit log, one line each (what a missing grant looks like). */
export async function refusals(auditLog: string): Promise<string> {
  const events = await auditEvents(auditLog).catch(() => []);
  const refused = events.filter((e) => e.responseStatus.code === 401 || e.responseStatus.code === 403);
  return [
    ...new Set(refused.map((e) => `${e.user.username} ${e.verb} ${e.requestURI} → ${e.responseStatus.code}`)),
  ].join('\n');
}

interface KubeconfigFile {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  contexts: { name: string; context: { cluster: string } }[];
}

export async function startSplitFleet(options: SplitFleetOptions): Promise<SplitFleet> {
  const auditLog = join(options.dir, 'audit.jsonl');
  const dataDir = options.restartableServer ? join(options.dir, 'data') : undefined;
  const startUp = (port?: number) =>
    startChildFleet({
      config: options.config,
      dir: options.dir,
      dataDir,
      // `up` takes the last --port given: 0 (a free one) at first, then the one it chose.
      args: ['--stand-ins-only', '--audit-log', auditLog, ...(port ? ['--port', String(port)] : [])],
      timeoutMs: 120_000,
    });
  /** Each process's output from its start on, appended to `<dir>/logs/<name>.log` across restarts. */
  const logs = join(options.dir, 'logs');
  await mkdir(logs, { recursive: true });
  const keepLog = (name: string, child: ChildProcess) => {
    const file = createWriteStream(join(logs, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(file, { end: false });
    child.stderr?.pipe(file, { end: false });
    child.once('close', () => file.end()); // after its output streams have ended
  };
  let fleet = await startUp();
  keepLog(APISERVER, fleet.child);
  const processes = new Map<string, RunningProcess>();
  try {
    const admin = fleet.kubectl;
    const on = (context: string, ...args: string[]) => admin.ok(['--context', context, ...args]);
    const apply = (context: string, base: string) => on(context, 'apply', '-k', join(CONFIG_DIR, base));
    const projectContexts = options.projects.map((project) => `project-${project}`);

    await apply('platform', 'crd/platform');
    await apply('hub', 'crd/hub');
    await apply('hub', 'crd/propagation');
    for (const context of projectContexts) await apply(context, 'crd/project');
    for (const cell of options.cells) await apply(cell, 'crd/cell');
    await apply('platform', 'rbac/platform');
    await apply('hub', 'rbac/hub');
    for (const context of projectContexts) await apply(context, 'rbac/project');
    for (const cell of options.cells) await apply(cell, 'rbac/cell');
    // One ServiceAccount per cell where it acts abroad: on the hub, and on the platform whose
    // tokens reach every project plane under it.
    for (const context of ['hub', 'platform'])
      for (const cell of options.cells)
        await on(context, 'create', 'serviceaccount', cell, '-n', CELLS_NAMESPACE);

    const file = parse(readFileSync(fleet.kubeconfigPath, 'utf8')) as KubeconfigFile;
    const planeOf = (context: string) => {
      const cluster = file.contexts.find((c) => c.name === context)!.context.cluster;
      return file.clusters.find((c) => c.name === cluster)!.cluster;
    };
    const kubeconfigs = join(options.dir, 'identities');
    await mkdir(kubeconfigs, { recursive: true });
    /** A kubeconfig reaching `context`'s plane with a token minted there for `namespace/name`. */
    const kubeconfigFor = async (context: string, namespace: string, name: string): Promise<string> => {
      const token = (await on(context, 'create', 'token', name, '-n', namespace, '--duration', '1h')).trim();
      const plane = planeOf(context);
      const ca = Buffer.from(plane['certificate-authority-data'], 'base64').toString('utf8');
      return renderKubeconfig(ca, [{ name: context, server: plane.server, token }], context);
    };
    const write = async (name: string, content: string) => {
      const path = join(kubeconfigs, name);
      await writeFile(path, content, { mode: 0o600 });
      return path;
    };

    const starters = new Map<string, () => Promise<RunningProcess>>();
    const managerHub = await write(
      'manager-hub',
      await kubeconfigFor('hub', SYSTEM_NAMESPACE, 'netpresence-manager'),
    );
    const managerPlatform = await write(
      'manager-platform',
      await kubeconfigFor('platform', SYSTEM_NAMESPACE, 'netpresence-manager'),
    );
    starters.set('manager', () =>
      startProcess(
        'manager',
        [
          '--hub-kubeconfig',
          managerHub,
          '--platform-kubeconfig',
          managerPlatform,
          '--identity',
          'split-manager',
          '--log-level',
          'warn',
        ],
        START_WITHIN,
      ),
    );

    const propagatorHub = await write(
      'propagator-hub',
      await kubeconfigFor('hub', SYSTEM_NAMESPACE, 'netpresence-propagator'),
    );
    await on('hub', 'create', 'namespace', MEMBER_SECRETS_NAMESPACE);
    for (const cell of options.cells) {
      const member = await write(
        `propagator-${cell}`,
        await kubeconfigFor(cell, SYSTEM_NAMESPACE, 'netpresence-propagator'),
      );
      await on(
        'hub',
        'create',
        'secret',
        'generic',
        cell,
        '-n',
        MEMBER_SECRETS_NAMESPACE,
        `--from-file=kubeconfig=${member}`,
      );
      await on(
        'hub',
        'patch',
        'cluster',
        cell,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { secretRef: { namespace: MEMBER_SECRETS_NAMESPACE, name: cell } } }),
      );
    }
    starters.set('propagator', () =>
      startProcess(
        'propagator',
        ['--hub-kubeconfig', propagatorHub, '--identity', 'split-propagator', '--log-level', 'warn'],
        START_WITHIN,
      ),
    );

    for (const cell of options.cells) {
      const kubeconfig = await write(
        `${cell}-cell`,
        await kubeconfigFor(cell, SYSTEM_NAMESPACE, 'netpresence-cell'),
      );
      const hubKubeconfig = await write(`${cell}-hub`, await kubeconfigFor('hub', CELLS_NAMESPACE, cell));
      const ipamKubeconfig = await write(
        `${cell}-ipam`,
        await kubeconfigFor('platform', CELLS_NAMESPACE, cell),
      );
      starters.set(cell, () =>
        startCellProcess({
          kubeconfig,
          ipamKubeconfig,
          hubKubeconfig,
          cellName: cell,
          identity: `split-${cell}`,
          timeoutMs: START_WITHIN,
        }),
      );
    }

    const port = Number(new URL(planeOf('platform').server).port);
    const restart = async (name: string) => {
      if (name === APISERVER) {
        if (!dataDir) throw new Error('the API server can be restarted only with restartableServer');
        fleet = await startUp(port);
        keepLog(APISERVER, fleet.child);
        return fleet;
      }
      const started = await starters.get(name)!();
      keepLog(name, started.child);
      processes.set(name, started);
      return started;
    };
    // One at a time: cold starts side by side on a loaded machine would each take longer.
    for (const name of starters.keys()) await restart(name);
    const kill = async (name: string, signal: NodeJS.Signals = 'SIGTERM') => {
      if (name === APISERVER) return stopChild(fleet.child, signal);
      const running = processes.get(name)!;
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill(signal);
      return running.exited;
    };
    return {
      get fleet() {
        return fleet;
      },
      auditLog,
      processes,
      restart,
      kill,
      async dispose() {
        for (const name of processes.keys()) await kill(name, 'SIGKILL');
        await fleet.dispose();
      },
    };
  } catch (err) {
    for (const running of processes.values()) running.child.kill('SIGKILL');
    await fleet.dispose();
    throw new Error(`${(err as Error).message}\nrefused so far:\n${await refusals(auditLog)}`, {
      cause: err,
    });
  }
}

/** Sends `signal` to `child` unless it has exited; resolves with its exit code once it has. */
function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}
