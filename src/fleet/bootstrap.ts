/**
 * Bootstrap: what the fleet writes into a plane it composes before any client reaches it — the
 * plane's CRDs and its RBAC objects — written in process through the plane's own write path
 * (admission included), so a plane is usable the moment it is served.
 *
 * Guarantees: `ensureObjects` leaves every given object stored with exactly the given content
 * (everything but metadata and status); an object already stored with that content is not
 * written again, so a restart on a data directory writes nothing that did not change. A CRD is
 * served in the same write that stores it (the embedded server establishes it at once).
 * Every plane of a kind is given the same CRD objects, prepared once per process and frozen:
 * the write path shares what it does not change with the stored object (writes.ts), so a
 * thousand project planes hold one copy of each schema, not a thousand, and what is compiled
 * from a schema and cached by its identity (structural schema, validators, rules) is compiled
 * once — a write that tried to change a shared schema would throw instead of reaching the
 * other planes.
 * Assumes: the resource types named are served in the plane (built-ins, or CRDs installed first);
 * the objects given to `ensureObjects` are the callers' to give (they are stored, not copied).
 */
import type { KubeObject } from '../apiserver/objects.ts';
import type { Plane } from '../apiserver/plane.ts';
import { createObject, readObject, updateObject } from '../apiserver/writes.ts';
import {
  cellCrds,
  hubCrds,
  platformCrds,
  projectCrds,
  propagationCrds,
  type CustomResourceDefinition,
} from '../apis/crds.ts';

export interface StoredKind {
  group: string;
  version: string;
  plural: string;
}

export const CRDS: StoredKind = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
};

/** The CRDs each kind of plane serves (apis.md §0.1); the hub runs the embedded engine. */
export const crdsOfPlane = {
  platform: platformCrds,
  project: projectCrds,
  hub: [...hubCrds, ...propagationCrds],
  cell: cellCrds,
} satisfies Record<string, CustomResourceDefinition[]>;

function content(object: KubeObject): string {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return JSON.stringify(rest);
}

/** Creates each object, or replaces a stored one whose content differs. */
export function ensureObjects(plane: Plane, kind: StoredKind, objects: readonly KubeObject[]): void {
  // A degraded plane (read-only: it could not load its file) still gets the fleet's CRDs and
  // grants, in memory only, so that its identities can read what it serves.
  if (plane.degraded) return plane.writeInMemory(() => storeObjects(plane, kind, objects));
  storeObjects(plane, kind, objects);
}

function storeObjects(plane: Plane, kind: StoredKind, objects: readonly KubeObject[]): void {
  const type = plane.catalog.lookup(kind.group, kind.version, kind.plural);
  if (!type)
    throw new Error(`${kind.plural}.${kind.group}/${kind.version} is not served in plane ${plane.name}`);
  for (const object of objects) {
    const { name, namespace } = object.metadata;
    const stored = readObject(plane, type, namespace, name!);
    if (!stored) {
      createObject(plane, type, { ...object, metadata: { ...object.metadata } });
      continue;
    }
    if (content(stored) === content(object)) continue;
    updateObject(plane, type, { ...object, metadata: { ...stored.metadata } }, stored);
  }
}

const prepared = new WeakMap<readonly CustomResourceDefinition[], readonly KubeObject[]>();

/** `crds` as every plane stores them: copied once, deeply frozen (see the module doc). */
function preparedCrds(crds: readonly CustomResourceDefinition[]): readonly KubeObject[] {
  let objects = prepared.get(crds);
  if (!objects)
    prepared.set(crds, (objects = crds.map((crd): KubeObject => deepFreeze(structuredClone({ ...crd })))));
  return objects;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

export function installPlaneCrds(plane: Plane, crds: readonly CustomResourceDefinition[]): void {
  ensureObjects(plane, CRDS, preparedCrds(crds));
}
