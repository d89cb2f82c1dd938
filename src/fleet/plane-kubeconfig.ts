/**
 * In-memory kubeconfigs for the fleet's own processes: one plane of the embedded server as one
 * identity — over the server's plain-HTTP loopback listener when it serves one (the clients are
 * in its process; the token is still sent and checked), else over HTTPS trusting the server's CA.
 * Nothing is written to disk: a kubeconfig written for users always names the HTTPS URL.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { renderKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import type { ApiServer } from '../apiserver/server.ts';

/** A KubeConfig for one plane as one identity, built in memory. */
export function planeKubeConfig(server: ApiServer, plane: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  const loopback = server.loopbackUrl(plane);
  if (loopback) {
    kubeConfig.loadFromOptions({
      // Plain HTTP: no TLS to verify (client-node refuses an http:// server without this).
      clusters: [{ name: plane, server: loopback, skipTLSVerify: true }],
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
