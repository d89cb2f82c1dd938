/**
 * In-memory kubeconfigs for the fleet's own processes: one plane of the embedded server as one
 * identity — over the fleet's in-process transport when the server is served in process
 * (in-process-transport.ts: no socket; the token is still sent and checked), else over its
 * plain-HTTP loopback listener when it serves one, else over HTTPS trusting the server's CA.
 * Nothing is written to disk: a kubeconfig written for users always names the HTTPS URL. A
 * serialised one (`serialPlaneKubeConfig`, `KubeConfig.exportConfig()`'s JSON, token included)
 * is how a controller worker of the fleet's process is handed its planes (controller-sets.ts).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { renderKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import type { ApiServer } from '../apiserver/server.ts';
import { inProcessUrl } from './in-process-transport.ts';

/** A KubeConfig for one plane as one identity, built in memory. */
export function planeKubeConfig(server: ApiServer, plane: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  const plain = inProcessUrl(server, plane) ?? server.loopbackUrl(plane);
  if (plain) {
    kubeConfig.loadFromOptions({
      // Plain HTTP: no TLS to verify (client-node refuses an http:// server without this).
      clusters: [{ name: plane, server: plain, skipTLSVerify: true }],
      users: [{ name: plane, token }],
      contexts: [{ name: plane, cluster: plane, user: plane }],
      currentContext: plane,
    });
    return kubeConfig;
  }
  kubeConfig.loadFromString(
    renderKubeconfig(
      server.certificates.caCertPem,
      [{ name: plane, server: server.url(plane), token }],
      plane,
    ),
  );
  return kubeConfig;
}

/** A kubeconfig as `KubeConfig.exportConfig()` writes it: one plane as one identity. */
export type SerialKubeConfig = string;

/** `planeKubeConfig`, serialised to cross to a worker thread. */
export function serialPlaneKubeConfig(server: ApiServer, plane: string, token: string): SerialKubeConfig {
  return planeKubeConfig(server, plane, token).exportConfig();
}

/** The KubeConfig a serialised one describes. */
export function kubeConfigOf(serial: SerialKubeConfig): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(serial);
  return kubeConfig;
}
