/**
 * In-memory kubeconfigs for the fleet's own processes: one plane of the embedded server as one
 * identity, trusting the server's CA. Nothing is written to disk.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { renderKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import type { ApiServer } from '../apiserver/server.ts';

/** A KubeConfig for one plane as one identity, built in memory. */
export function planeKubeConfig(server: ApiServer, plane: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(
    renderKubeconfig(
      server.certificates.caCertPem,
      [{ name: plane, server: server.url(plane), token }],
      plane,
    ),
  );
  return kubeConfig;
}
