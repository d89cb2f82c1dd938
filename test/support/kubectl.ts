/**
 * Runs the installed `kubectl` against a kubeconfig, with its own cache directory so discovery
 * and OpenAPI caches never leak between test runs. Fails loudly when kubectl is missing.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

let checked = false;

export function requireKubectl(): void {
  if (checked) return;
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'kubectl is not on PATH: these tests drive the real kubectl; install kubectl 1.32 and rerun',
    );
  }
  checked = true;
}

export class Kubectl {
  constructor(
    private readonly kubeconfig: string,
    private readonly cacheDir: string,
    private readonly home: string,
  ) {
    requireKubectl();
  }

  /** Runs kubectl with `args`; `input` is written to stdin. Never throws on a non-zero exit. */
  run(args: string[], input?: string, timeoutMs = 30_000): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        'kubectl',
        ['--kubeconfig', this.kubeconfig, '--cache-dir', this.cacheDir, ...args],
        {
          env: { ...process.env, HOME: this.home, KUBECONFIG: this.kubeconfig },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      child.stdin.end(input ?? '');
    });
  }

  /** Runs kubectl and fails with its stderr unless it exits 0. */
  async ok(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input);
    if (result.code !== 0)
      throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return result.stdout;
  }

  /** Starts a long-running kubectl (e.g. `get -w`), returning the child to read and kill. */
  spawn(args: string[]) {
    return spawn('kubectl', ['--kubeconfig', this.kubeconfig, '--cache-dir', this.cacheDir, ...args], {
      env: { ...process.env, HOME: this.home, KUBECONFIG: this.kubeconfig },
    });
  }
}
