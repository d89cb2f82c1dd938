/**
 * The RBAC bases of config/rbac (one kustomization per kind of plane) as objects, read from the
 * files a deployment applies with `kubectl apply -k`, so that the fleet grants what a real
 * cluster grants from the same source. The files ship with the package (`files` in
 * package.json), beside dist/ as beside src/.
 *
 * Guarantees: `rbacBase` returns every object of every file the base's kustomization lists, in
 * order; `baseRole` returns one role of a base, or throws naming the base and the role.
 * Assumes: the bases use `resources:` only (no patches or generators), which
 * test/deploy/kustomize.test.ts checks against `kubectl kustomize`.
 */
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../apiserver/objects.ts';

export type RbacPlane = 'platform' | 'project' | 'hub' | 'cell';

const RBAC_DIR = new URL('../../config/rbac/', import.meta.url);

export function rbacBase(plane: RbacPlane): KubeObject[] {
  const dir = new URL(`${plane}/`, RBAC_DIR);
  const kustomization = parse(readFileSync(new URL('kustomization.yaml', dir), 'utf8')) as {
    resources: string[];
  };
  return kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(file, dir), 'utf8'))
      .map((document) => document.toJSON() as KubeObject | null)
      .filter((object): object is KubeObject => object !== null),
  );
}

export function baseRole(plane: RbacPlane, kind: 'ClusterRole' | 'Role', name: string): KubeObject {
  const role = rbacBase(plane).find((object) => object.kind === kind && object.metadata.name === name);
  if (!role) throw new Error(`config/rbac/${plane} has no ${kind} ${name}`);
  return role;
}
