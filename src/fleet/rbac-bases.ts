/**
 * The RBAC bases of config/rbac (one kustomization per kind of plane) as objects, read from the
 * files a deployment applies with `kubectl apply -k`, so that the fleet grants what a real
 * cluster grants from the same source. The files ship with the package (`files` in
 * package.json), beside dist/ as beside src/.
 *
 * Guarantees: `rbacBase` returns every object of every file the base's kustomization lists, in
 * order, as new objects the caller may keep or change (the files are read and parsed once per
 * process: a fleet applies the project base to every project plane, and parsing its YAML each
 * time took 10 of the 76 s a 1,000-project fleet spent starting); `baseRole` returns one role
 * of a base, or throws naming the base and the role; `applyRbacBase` stores a base in a plane of
 * the embedded fleet (its only source of RBAC for the fleet's own identities, identities.ts).
 * Assumes: the bases use `resources:` only (no patches or generators), which
 * test/deploy/kustomize.test.ts checks against `kubectl kustomize`.
 */
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../apiserver/objects.ts';
import type { Plane } from '../apiserver/plane.ts';
import { ensureObjects, type StoredKind } from './bootstrap.ts';

export type RbacPlane = 'platform' | 'project' | 'hub' | 'cell';

const RBAC_DIR = new URL('../../config/rbac/', import.meta.url);

/** Each base's objects, encoded: parsed from YAML once, decoded afresh for every caller. */
const encodedBases = new Map<RbacPlane, string>();

export function rbacBase(plane: RbacPlane): KubeObject[] {
  let encoded = encodedBases.get(plane);
  if (encoded === undefined) encodedBases.set(plane, (encoded = JSON.stringify(readBase(plane))));
  return JSON.parse(encoded) as KubeObject[];
}

function readBase(plane: RbacPlane): KubeObject[] {
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

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const APPLIED: Record<string, StoredKind> = {
  Namespace: { group: '', version: 'v1', plural: 'namespaces' },
  ServiceAccount: { group: '', version: 'v1', plural: 'serviceaccounts' },
  ClusterRole: { group: RBAC_GROUP, version: 'v1', plural: 'clusterroles' },
  ClusterRoleBinding: { group: RBAC_GROUP, version: 'v1', plural: 'clusterrolebindings' },
  Role: { group: RBAC_GROUP, version: 'v1', plural: 'roles' },
  RoleBinding: { group: RBAC_GROUP, version: 'v1', plural: 'rolebindings' },
};

/**
 * Stores every object of base `base` in `plane`, as `kubectl apply -k config/rbac/<base>` would:
 * a missing object is created, a role or binding whose content differs is replaced (a fleet
 * started on an older data directory gets today's roles); a Namespace already there is kept.
 */
export function applyRbacBase(plane: Plane, base: RbacPlane): void {
  for (const object of rbacBase(base)) {
    const kind = object.kind === undefined ? undefined : APPLIED[object.kind];
    if (!kind)
      throw new Error(
        `config/rbac/${base}: ${object.kind} ${object.metadata.name} is not a kind the fleet applies`,
      );
    if (object.kind === 'Namespace' && plane.namespace(object.metadata.name!)) continue;
    ensureObjects(plane, kind, [object]);
  }
}
