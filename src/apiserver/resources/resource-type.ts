/**
 * A served resource: one (group, version, plural) the API server answers for, with the rules
 * its writes follow. Built-in kinds and CRD versions are described the same way, so the
 * handlers never ask which one they serve.
 *
 * Guarantees: `storage` names where objects live in the plane's revision log; two resource
 * types with one `storage` (core and events.k8s.io Events, or two versions of a CRD) see the
 * same objects, each through its own `fromStorage`/`toStorage`.
 */
import type { FieldError, ResourceRef } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import type { PatchStrategy } from '../patch/strategic-merge-patch.ts';
import type { Column } from '../table/table.ts';
import type { NameRule } from '../validation/names.ts';

export interface Subresource {
  name: string;
  verbs: string[];
}

/** What a write is: the object as stored before it (absent on create) and the request's subresource. */
export interface WriteContext {
  old?: KubeObject;
  subresource?: string;
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  nameRule: NameRule;
  /** The verbs discovery lists; STANDARD_VERBS when absent. */
  verbs?: string[];
  /** `<group>/<plural>` in the revision log. */
  storage: string;
  subresources: Subresource[];
  /** `status` is written only through `/status`, and does not count for `generation`. */
  statusSubresource: boolean;
  /** Namespaces have no `metadata.generation`. */
  hasGeneration: boolean;
  /** CRs and CRDs require `metadata.resourceVersion` on PUT; built-ins allow an unconditional PUT. */
  requireResourceVersionOnUpdate: boolean;
  /** Present for kinds kubectl compiles in: strategic merge patch is accepted with these keys. */
  strategicMerge?: PatchStrategy;
  /** Server-side printing (Table) columns. */
  columns: Column[];
  /** The OpenAPI v3 schema of the kind (without apiVersion/kind/metadata, which are added). */
  schema: Record<string, unknown>;
  /** Set for CRD-defined kinds: which CRD and version describe it (admission reads the schema). */
  customResource?: { crdName: string; version: string };
  /** Extra fieldSelector fields beyond metadata.name and metadata.namespace. */
  selectableFields?: Record<string, (object: KubeObject) => string>;
  /** Server-set defaults on create (after the name and namespace are settled). */
  prepareForCreate?(object: KubeObject): KubeObject;
  /** Adjusts an update before it is compared and stored. */
  prepareForUpdate?(object: KubeObject, old: KubeObject): KubeObject;
  /** Kind-specific validation; the refusals become one 422. */
  validate?(object: KubeObject, context: WriteContext): FieldError[];
  /** Converts a request object to the stored form (for types sharing storage). */
  toStorage?(object: KubeObject): KubeObject;
  /** Converts a stored object to this type's form. */
  fromStorage?(object: KubeObject): KubeObject;
}

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

export function resourceRef(type: ResourceType): ResourceRef {
  return { group: type.group, resource: type.plural };
}

/** `<namespace>/<name>`, the key of an object inside its resource. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function storedForm(type: ResourceType, object: KubeObject): KubeObject {
  return type.toStorage ? type.toStorage(object) : object;
}

/** The object as this type presents it, with this type's apiVersion and kind. */
export function presentedForm(type: ResourceType, stored: KubeObject): KubeObject {
  const object = type.fromStorage ? type.fromStorage(stored) : stored;
  return { apiVersion: apiVersionOf(type), kind: type.kind, ...withoutTypeMeta(object) };
}

function withoutTypeMeta(object: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return rest;
}

export const STANDARD_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
export const STATUS_SUBRESOURCE: Subresource = { name: 'status', verbs: ['get', 'patch', 'update'] };
