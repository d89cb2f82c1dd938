/**
 * `netpresence dashboard` as a user runs it beside a fleet: a child process of
 * `bin/netpresence.js`, running once it prints where it serves the page.
 *
 * Guarantees: `startDashboardProcess` resolves with the page's URL, or rejects with its stderr
 * when it exits or stays silent for 60 s; `stop()` sends SIGTERM and resolves once it exited.
 */
import { spawn } from 'node:child_process';

export interface DashboardProcess {
  url: string;
  stop(): Promise<void>;
}

const LINE = /netpresence dashboard at (\S+)/;

export async function startDashboardProcess(kubeconfig: string, listen: string): Promise<DashboardProcess> {
  const child = spawn(
    process.execPath,
    ['bin/netpresence.js', 'dashboard', '--kubeconfig', kubeconfig, '--listen', listen],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`netpresence dashboard did not start within 60 s: ${stderr}`));
    }, 60_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = LINE.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`netpresence dashboard exited: ${stderr}`));
    });
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
