/**
 * What RBAC grants and what a run used, in one comparable form: a key
 * `plane|verb|group|resource|subresource|ns-or-cluster` per permission. Grants come from a
 * config/rbac base rendered with `kubectl kustomize`; uses come from the API server's audit log
 * (audit.k8s.io/v1 Events, one JSON line each, the plane in an annotation).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const CONFIG = resolve(import.meta.dirname, '../../config');
export const PLANE_ANNOTATION = 'netpresence.datumapis.com/plane';

type Obj = Record<string, any>;

/** Every object of a config/ base, as `kubectl kustomize` renders it. */
export function rendered(base: string): Obj[] {
  const out = spawnSync('kubectl', ['kustomize', join(CONFIG, base)], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return parseAllDocuments(out.stdout).map((d) => d.toJSON() as Obj);
}

/** The keys of every verb of every rule of `role`, labelled `plane`. */
function ruleKeys(plane: string, role: Obj, namespaced: (resource: string) => boolean): string[] {
  const keys: string[] = [];
  for (const rule of role.rules)
    for (const group of rule.apiGroups)
      for (const resource of rule.resources) {
        const [base, sub = ''] = resource.split('/');
        for (const verb of rule.verbs)
          keys.push(`${plane}|${verb}|${group}|${base}|${sub}|${namespaced(base) ? 'ns' : 'cluster'}`);
      }
  return keys;
}

/** The keys of every verb of every rule `base` binds to a subject `matches`, labelled `plane`. */
export function granted(
  plane: string,
  base: string,
  matches: (subject: Obj) => boolean,
  namespaced: (resource: string) => boolean,
): Set<string> {
  const objects = rendered(base);
  const keys = new Set<string>();
  for (const binding of objects.filter((o) => /RoleBinding$/.test(o.kind) && o.subjects.some(matches))) {
    const role = objects.find(
      (o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name,
    )!;
    for (const key of ruleKeys(plane, role, namespaced)) keys.add(key);
  }
  return keys;
}

/** The keys of ClusterRole `name` of `base`, which something binds at runtime (the consumer's). */
export function roleGranted(
  plane: string,
  base: string,
  name: string,
  namespaced: (resource: string) => boolean,
): Set<string> {
  const role = rendered(base).find((o) => o.kind === 'ClusterRole' && o.metadata.name === name);
  assert.ok(role, `ClusterRole ${name} in ${base}`);
  return new Set(ruleKeys(plane, role, namespaced));
}

export interface AuditEvent {
  user: { username?: string; groups?: string[] };
  verb: string;
  requestURI: string;
  objectRef?: { apiGroup?: string; resource: string; subresource?: string; namespace?: string };
  responseStatus: { code: number };
  annotations: Record<string, string>;
}

export async function auditEvents(path: string): Promise<AuditEvent[]> {
  return (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditEvent);
}

/** The key of what an event used, its plane labelled by `planeLabel`. */
export function usedKey(event: AuditEvent, planeLabel: (plane: string) => string = (p) => p): string {
  const r = event.objectRef!;
  const plane = planeLabel(event.annotations[PLANE_ANNOTATION]);
  return `${plane}|${event.verb}|${r.apiGroup ?? ''}|${r.resource}|${r.subresource ?? ''}|${r.namespace ? 'ns' : 'cluster'}`;
}

/**
 * Compares grants with uses: `unused` is granted, never used and not listed in `unreached`;
 * `notGranted` was used without a grant. A namespaced list or watch across all namespaces is
 * recorded without a namespace, so it counts for the namespaced grant.
 */
export function compare(
  grants: Set<string>,
  used: Set<string>,
  unreached: Record<string, string>,
): { unused: string[]; notGranted: string[] } {
  const usedAnywhere = (key: string) => used.has(key) || used.has(key.replace(/\|ns$/, '|cluster'));
  return {
    unused: [...grants].filter((key) => !usedAnywhere(key) && !unreached[key]).sort(),
    notGranted: [...used]
      .filter((key) => !grants.has(key) && !grants.has(key.replace(/\|cluster$/, '|ns')))
      .sort(),
  };
}
