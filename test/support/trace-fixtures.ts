/**
 * Trace fixtures: a kubeconfig for a scenario's planes named as `netpresence up` names them
 * (src/trace/contexts.ts), and a stand-in for propagation that carries hub copies to a cell.
 *
 * Guarantees: the kubeconfig has `platform`, `hub`, `project-<project>` for every served project
 * plane and one context per cell named after it, all as the admin identity; `carryToCell` writes
 * spec and labels only, as propagation does, and the namespace with its labels first.
 */
import { join } from 'node:path';
import { renderKubeconfig, writeKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { ROOT_PLANE } from '../../src/apiserver/server.ts';
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT } from '../../src/trace/contexts.ts';
import { NAMESPACES, type Scenario } from './scenario.ts';

/** Writes the fleet-style kubeconfig of `s` into `dir`; returns its path. */
export async function writeFleetKubeconfig(s: Scenario, dir: string): Promise<string> {
  const token = s.server.adminToken;
  const contexts = s.server.planeNames().map((plane) => ({
    name: plane === ROOT_PLANE ? PLATFORM_CONTEXT : plane,
    server: s.server.url(plane),
    token,
  }));
  const path = join(dir, 'kubeconfig');
  await writeKubeconfig(path, renderKubeconfig(s.server.certificates.caCertPem, contexts, HUB_CONTEXT));
  return path;
}

/** Copies hub object `name` of `kind` in hub namespace `namespace` to `cell`, as propagation would. */
export async function carryToCell(
  s: Scenario,
  cell: string,
  kind: ResourceId,
  name: string,
  namespace: string,
): Promise<void> {
  const hubNamespace = await s.client('hub', NAMESPACES).get(namespace);
  const cellNamespaces = s.client(cell, NAMESPACES);
  if (!(await cellNamespaces.get(namespace)))
    await cellNamespaces.create({
      metadata: { name: namespace, labels: hubNamespace?.metadata.labels ?? {} },
    });
  const copy = await s.client(`hub`, kind).get(name, namespace);
  if (!copy) throw new Error(`hub has no ${kind.kind} ${namespace}/${name} to carry`);
  await s.client<KubeObject>(cell, kind).create({
    metadata: { name, namespace, labels: copy.metadata.labels ?? {} },
    spec: copy.spec,
  });
}
