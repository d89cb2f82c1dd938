/**
 * `netpresence apiserver` as a child process, as a user runs it, and a minimal keep-alive
 * HTTPS client for its planes (for load and crash tests, where client-node's overhead would
 * be measured instead of the server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';

export interface PlaneTarget {
  base: string;
  token: string;
  ca: string;
  agent: Agent;
}

export interface ChildServer {
  child: ChildProcess;
  /** The plane named `context` in the written kubeconfig. */
  target(context: string): Promise<PlaneTarget>;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  /** What the process wrote to stderr so far (its logs). */
  stderr(): string;
}

/**
 * Starts the server and resolves once it prints that it listens. The bound is generous: a cold
 * start compiles the sources through tsx, which on a loaded 2-core machine takes over 20 s.
 */
export async function startChildServer(
  args: string[],
  kubeconfig: string,
  timeoutMs = 120_000,
  /** Flags for the child's `node` itself (e.g. `--cpu-prof`), before the script. */
  nodeArgs: string[] = [],
  /** The script, relative to the repository root: the sources through tsx, or `dist/cli/main.js`. */
  entry = 'bin/netpresence.js',
): Promise<ChildServer> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, entry, 'apiserver', '--listen', '127.0.0.1:0', '--kubeconfig', kubeconfig, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`apiserver did not start within ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`apiserver exited with ${code}: ${stderr}`));
    });
  });
  return {
    child,
    exited,
    stderr: () => stderr,
    async target(context: string) {
      const config = parseYaml(await readFile(kubeconfig, 'utf8'));
      const entry = config.contexts.find((c: any) => c.name === context).context;
      const cluster = config.clusters.find((c: any) => c.name === entry.cluster).cluster;
      const user = config.users.find((u: any) => u.name === entry.user).user;
      return {
        base: cluster.server,
        token: user.token,
        ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString(),
        agent: new Agent({ keepAlive: true, maxSockets: 64 }),
      };
    },
  };
}

export interface RawResponse {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * One request; resolves with the status and body, rejects on a broken connection. A string or
 * Buffer body is sent as is, anything else as JSON.
 */
export function call(
  target: PlaneTarget,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const payload =
      body === undefined
        ? undefined
        : typeof body === 'string' || Buffer.isBuffer(body)
          ? body
          : JSON.stringify(body);
    const req = request(
      `${target.base}${path}`,
      {
        method,
        agent: target.agent,
        ca: target.ca,
        headers: {
          Authorization: `Bearer ${target.token}`,
          'Content-Type': contentType,
          ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Opens a watch stream and calls `onEvent` per event line; returns the request to destroy. */
export function openWatch(
  target: PlaneTarget,
  path: string,
  onEvent: (event: { type: string; object: any }) => void,
): Promise<{ close(): void; response: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.base}${path}`,
      { ca: target.ca, headers: { Authorization: `Bearer ${target.token}` } },
      (res) => {
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line) onEvent(JSON.parse(line));
          }
        });
        res.on('error', () => undefined);
        resolve({ close: () => req.destroy(), response: res });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
