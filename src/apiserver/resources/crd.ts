/**
 * CustomResourceDefinitions: their own write rules, and the resource types a CRD makes served.
 *
 * Guarantees: a CRD is refused unless its name is `<plural>.<group>`, it has exactly one storage
 * version and its names are lowercase DNS labels; the server fills `names.singular`,
 * `names.listKind` and `conversion`; the status written on create says NamesAccepted and
 * Established, so the kind is served in the same write that creates the CRD. A version still in
 * `status.storedVersions` cannot be removed.
 *
 * Caveat: names that clash with another CRD's kind are not detected; both are served.
 */
import { forbiddenField, invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isPlainObject, nowRfc3339, objectField, type KubeObject } from '../objects.ts';
import { customResourceColumns } from '../table/table.ts';
import { isDnsLabel, isDnsSubdomain } from '../validation/names.ts';
import { STATUS_SUBRESOURCE, type ResourceType } from './resource-type.ts';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, never>; scale?: unknown };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    format?: string;
    description?: string;
    priority?: number;
    jsonPath: string;
  }[];
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  conversion?: { strategy: string };
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

function specOf(crd: KubeObject): CrdSpec {
  return crd.spec as CrdSpec;
}

function withDefaultNames(names: CrdNames): Required<Pick<CrdNames, 'singular' | 'listKind'>> & CrdNames {
  return {
    ...names,
    singular: names.singular || names.kind.toLowerCase(),
    listKind: names.listKind || `${names.kind}List`,
  };
}

function condition(type: string, reason: string, message: string, now: string) {
  return { type, status: 'True', lastTransitionTime: now, reason, message };
}

function storageVersion(spec: CrdSpec): string | undefined {
  return spec.versions.find((v) => v.storage)?.name;
}

function prepareForCreate(crd: KubeObject): KubeObject {
  const spec = specOf(crd);
  const names = withDefaultNames(spec.names);
  const now = nowRfc3339(new Date());
  const finalizers = [...new Set([...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
  return {
    ...crd,
    metadata: { ...crd.metadata, finalizers },
    spec: { ...spec, names, conversion: spec.conversion ?? { strategy: 'None' } },
    status: {
      acceptedNames: names,
      storedVersions: [storageVersion(spec)],
      conditions: [
        condition('NamesAccepted', 'NoConflicts', 'no conflicts found', now),
        condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', now),
      ],
    },
  };
}

function prepareForUpdate(crd: KubeObject, old: KubeObject): KubeObject {
  const spec = specOf(crd);
  const names = withDefaultNames(spec.names);
  const oldStatus = (old.status ?? {}) as { storedVersions?: string[] };
  const stored = new Set(oldStatus.storedVersions ?? []);
  const current = storageVersion(spec);
  if (current) stored.add(current);
  return {
    ...crd,
    spec: { ...spec, names, conversion: spec.conversion ?? { strategy: 'None' } },
    status: { ...(old.status as object), acceptedNames: names, storedVersions: [...stored] },
  };
}

function validate(crd: KubeObject, context: { old?: KubeObject }): FieldError[] {
  const spec = crd.spec as Partial<CrdSpec> | undefined;
  if (!spec) return [required('spec')];
  const errors: FieldError[] = [];
  if (!spec.group) errors.push(required('spec.group'));
  else if (!spec.group.includes('.') || !isDnsSubdomain(spec.group)) {
    errors.push(invalidValue('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  const names = spec.names;
  if (!names?.plural) errors.push(required('spec.names.plural'));
  else if (!isDnsLabel(names.plural))
    errors.push(invalidValue('spec.names.plural', names.plural, 'a lowercase RFC 1123 label is required'));
  if (!names?.kind) errors.push(required('spec.names.kind'));
  if (names?.singular && !isDnsLabel(names.singular)) {
    errors.push(
      invalidValue('spec.names.singular', names.singular, 'a lowercase RFC 1123 label is required'),
    );
  }
  for (const [i, short] of (names?.shortNames ?? []).entries()) {
    if (!isDnsLabel(short))
      errors.push(
        invalidValue(`spec.names.shortNames[${i}]`, short, 'a lowercase RFC 1123 label is required'),
      );
  }
  if (names?.plural && spec.group && crd.metadata.name !== `${names.plural}.${spec.group}`) {
    errors.push(invalidValue('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errors.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }
  const versions = spec.versions ?? [];
  if (versions.length === 0)
    errors.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v.storage).length !== 1) {
    errors.push(
      invalidValue('spec.versions', versions, 'must have exactly one version marked as storage version'),
    );
  }
  for (const [i, version] of versions.entries()) {
    if (!version.name || !isDnsLabel(version.name))
      errors.push(invalidValue(`spec.versions[${i}].name`, version.name, 'a DNS-1035 label is required'));
    if (!version.schema?.openAPIV3Schema)
      errors.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  }
  const old = context.old;
  if (old) {
    const storedVersions = stringsOf(objectField(old, 'status').storedVersions);
    for (const stored of storedVersions) {
      if (!versions.some((v) => v.name === stored)) {
        errors.push(invalidValue('status.storedVersions', storedVersions, `must appear in spec.versions`));
      }
    }
    if (old.spec && (old.spec as CrdSpec).scope !== spec.scope) {
      errors.push(forbiddenField('spec.scope', 'field is immutable'));
    }
  }
  return errors;
}

export function customResourceDefinitionType(
  builtin: (
    fields: Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schema'> &
      Partial<ResourceType>,
  ) => ResourceType,
): ResourceType {
  return builtin({
    group: CRD_GROUP,
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    subresources: [STATUS_SUBRESOURCE],
    statusSubresource: true,
    requireResourceVersionOnUpdate: true,
    schema: {
      type: 'object',
      description: 'CustomResourceDefinition represents a resource that should be exposed on the API server.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    prepareForCreate,
    prepareForUpdate,
    validate,
  });
}

/**
 * Whether a stored CRD is served: Established. A deleting CRD stays served until its objects
 * are gone, so controllers can still clear their finalizers.
 */
export function isEstablished(crd: KubeObject): boolean {
  const conditions = objectField(crd, 'status').conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True')
  );
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** One resource type per served version of an established CRD. */
export function typesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = specOf(crd);
  const names = withDefaultNames(spec.names);
  const versions = [...spec.versions].sort((a, b) => Number(b.storage) - Number(a.storage));
  return versions
    .filter((v) => v.served)
    .map((version) => ({
      group: spec.group,
      version: version.name,
      kind: names.kind,
      listKind: names.listKind,
      plural: names.plural,
      singular: names.singular,
      namespaced: spec.scope === 'Namespaced',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      storage: `${spec.group}/${names.plural}`,
      subresources: version.subresources?.status ? [STATUS_SUBRESOURCE] : [],
      statusSubresource: Boolean(version.subresources?.status),
      hasGeneration: true,
      requireResourceVersionOnUpdate: true,
      nameRule: 'subdomain',
      columns: customResourceColumns(version.additionalPrinterColumns),
      schema: version.schema?.openAPIV3Schema ?? {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      customResource: { crdName: crd.metadata.name!, version: version.name },
    }));
}
