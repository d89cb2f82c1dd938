/**
 * Helpers for the hardening tests: an identity with exactly the rights a test grants it, raw
 * requests as that identity, and a probe that keeps asking `/readyz` while an attack runs.
 */
import { Agent } from 'node:https';
import type { ApiServer } from '../../src/apiserver/server.ts';
import { call, type PlaneTarget } from './child-server.ts';

export const RBAC = 'rbac.authorization.k8s.io';

/** A raw-request target for `plane` as the identity holding `token`. */
export function targetOf(server: ApiServer, plane: string, token: string): PlaneTarget {
  return {
    base: server.url(plane),
    token,
    ca: server.certificates.caCertPem,
    agent: new Agent({ keepAlive: true }),
  };
}

/**
 * Creates identity `name` and binds it, in `namespace` of `plane`, to a Role with `rules`;
 * returns its target. Written by the admin through the API.
 */
export async function identityWithRole(
  server: ApiServer,
  plane: string,
  namespace: string,
  name: string,
  rules: unknown[],
): Promise<PlaneTarget> {
  const admin = targetOf(server, plane, server.adminToken);
  const roles = `/apis/${RBAC}/v1/namespaces/${namespace}/roles`;
  const bindings = `/apis/${RBAC}/v1/namespaces/${namespace}/rolebindings`;
  const role = await call(admin, 'POST', roles, { metadata: { name }, rules });
  if (role.status !== 201) throw new Error(`role: ${role.body}`);
  const binding = await call(admin, 'POST', bindings, {
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: 'Role', name },
    subjects: [{ apiGroup: RBAC, kind: 'User', name }],
  });
  if (binding.status !== 201) throw new Error(`binding: ${binding.body}`);
  admin.agent.destroy();
  return targetOf(server, plane, server.createIdentity(name));
}

/**
 * Asks `/readyz` every few milliseconds until stopped; `stop` resolves with how many probes were
 * answered 200 and the longest wait for one (ms), and rejects when any probe failed.
 */
export function readyzProbe(target: PlaneTarget): {
  stop(): Promise<{ answered: number; slowestMs: number }>;
} {
  let running = true;
  let answered = 0;
  let slowestMs = 0;
  let failure: Error | undefined;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await call(target, 'GET', '/readyz');
        if (res.status !== 200) throw new Error(`/readyz answered ${res.status}`);
        answered += 1;
        slowestMs = Math.max(slowestMs, Date.now() - started);
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failure) throw failure;
      return { answered, slowestMs };
    },
  };
}
