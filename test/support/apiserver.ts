/**
 * Starts an embedded API server for a test: the root plane plus the named planes, a kubeconfig
 * with one context per plane in a temporary directory, and kubectl and client-node bound to it.
 */
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, type ApiServerOptions } from '../../src/apiserver/server.ts';
import { Kubectl } from './kubectl.ts';

export interface TestServer {
  server: ApiServer;
  dir: string;
  kubeconfigPath: string;
  kubectl: Kubectl;
  /** A client-node KubeConfig whose current context is `plane`. */
  kubeConfig(plane?: string): k8s.KubeConfig;
  stop(): Promise<void>;
}

export async function startTestServer(
  planes: string[] = [],
  options: ApiServerOptions = {},
): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-test-'));
  const server = await ApiServer.start(options);
  for (const plane of planes) server.addPlane(plane);
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, server.kubeconfig(), { mode: 0o600 });
  return {
    server,
    dir,
    kubeconfigPath,
    kubectl: new Kubectl(kubeconfigPath, join(dir, 'cache'), dir),
    kubeConfig(plane = 'root') {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      kc.setCurrentContext(plane);
      return kc;
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` returns a value that is not undefined, failing after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
