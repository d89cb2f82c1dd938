/**
 * A long-running netpresence command (`manager`, `cell`, `propagator`) as a user runs it: a
 * child process of `bin/netpresence.js` with its metrics and health listeners on free ports,
 * running once it prints where it serves them.
 *
 * Guarantees: `startProcess` resolves with both URLs, or rejects naming the command and its
 * stderr when it exits or stays silent for 30 s (or `timeoutMs`); `exited` resolves with the exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface RunningProcess {
  child: ChildProcess;
  metricsUrl: string;
  healthUrl: string;
  exited: Promise<number | null>;
}

const SERVING_LINE = /metrics on (\S+)\/metrics, health on (\S+)\/healthz/;

/** Runs `netpresence <command> <args> --metrics-addr 127.0.0.1:0 --health-addr 127.0.0.1:0`. */
export async function startProcess(
  command: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<RunningProcess> {
  const child = spawn(
    process.execPath,
    ['bin/netpresence.js', command, ...args, '--metrics-addr', '127.0.0.1:0', '--health-addr', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let stdout = '';
  const urls = await new Promise<{ metricsUrl: string; healthUrl: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`netpresence ${command} did not start within ${timeoutMs / 1000} s: ${stderr}`)),
      timeoutMs,
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = SERVING_LINE.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ metricsUrl: match[1], healthUrl: match[2] });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`netpresence ${command} exited with ${code}: ${stderr}`));
    });
  });
  return { child, exited, ...urls };
}

export interface CellProcessOptions {
  /** The cell plane's kubeconfig. */
  kubeconfig: string;
  /** The IPAM base's kubeconfig (project planes under it). */
  ipamKubeconfig: string;
  /** The hub's kubeconfig, for the interface write-back (with `cellName`). */
  hubKubeconfig?: string;
  cellName?: string;
  /** The Lease holder identity. */
  identity: string;
  timeoutMs?: number;
}

/** Runs `netpresence cell` with these kubeconfigs, logging warnings and worse. */
export function startCellProcess(options: CellProcessOptions): Promise<RunningProcess> {
  const hub = options.hubKubeconfig
    ? ['--hub-kubeconfig', options.hubKubeconfig, '--cell-name', options.cellName!]
    : [];
  return startProcess(
    'cell',
    [
      '--kubeconfig',
      options.kubeconfig,
      '--ipam-kubeconfig',
      options.ipamKubeconfig,
      ...hub,
      '--identity',
      options.identity,
      '--log-level',
      'warn',
    ],
    options.timeoutMs,
  );
}

/** GETs `url`; resolves with its status and body. */
export async function get(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}
