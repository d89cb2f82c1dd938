/**
 * OpenAPI v3 documents derived from the catalog: an index, and one document per group-version
 * with a PATCH operation per kind and a components schema per kind — what `kubectl apply`,
 * `create -f` (server-side field validation) and `kubectl explain` need.
 *
 * Guarantees: the index's hashed URLs change whenever a document changes; a PATCH operation
 * advertises only the patch types the kind accepts (strategic merge only for built-ins that
 * implement it), so kubectl picks JSON merge patch for custom resources.
 */
import { createHash } from 'node:crypto';
import { pathNotFound } from '../errors.ts';
import type { Catalog } from '../resources/catalog.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { patchTypes } from './patch.ts';

const OBJECT_META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const objectMetaSchema = {
  type: 'object',
  description:
    'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  properties: {
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    generateName: {
      type: 'string',
      description: 'An optional prefix the server uses to generate a unique name.',
    },
    namespace: {
      type: 'string',
      description: 'Namespace defines the space within which each name must be unique.',
    },
    uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
    resourceVersion: {
      type: 'string',
      description: 'An opaque value that represents the internal version of this object.',
    },
    generation: {
      type: 'integer',
      format: 'int64',
      description: 'A sequence number representing a specific generation of the desired state.',
    },
    creationTimestamp: {
      type: 'string',
      format: 'date-time',
      description: 'The time this object was created.',
    },
    deletionTimestamp: {
      type: 'string',
      format: 'date-time',
      description: 'The time after which this resource will be deleted.',
    },
    labels: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Map of string keys and values that can be used to organize and categorize objects.',
    },
    annotations: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Unstructured key value map stored with a resource.',
    },
    finalizers: {
      type: 'array',
      items: { type: 'string' },
      description: 'Must be empty before the object is deleted from the registry.',
    },
    ownerReferences: {
      type: 'array',
      description: 'List of objects depended by this object.',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
  },
};

function reversedGroup(group: string): string {
  if (group === '') return 'io.k8s.api.core';
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.replace(/\.k8s\.io$/, '').replace(/\./g, '_')}`;
  return group.split('.').reverse().join('.');
}

export function schemaName(type: ResourceType): string {
  return `${reversedGroup(type.group)}.${type.version}.${type.kind}`;
}

function itemPath(type: ResourceType): string {
  const root = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  return type.namespaced
    ? `${root}/namespaces/{namespace}/${type.plural}/{name}`
    : `${root}/${type.plural}/{name}`;
}

function kindSchema(type: ResourceType) {
  const base = type.schema as { properties?: Record<string, unknown>; [k: string]: unknown };
  return {
    ...base,
    type: 'object',
    properties: {
      apiVersion: {
        type: 'string',
        description: 'APIVersion defines the versioned schema of this representation of an object.',
      },
      kind: {
        type: 'string',
        description: 'Kind is a string value representing the REST resource this object represents.',
      },
      metadata: { allOf: [{ $ref: OBJECT_META_REF }], description: 'Standard object metadata.' },
      ...(base.properties ?? {}),
    },
    'x-kubernetes-group-version-kind': [{ group: type.group, version: type.version, kind: type.kind }],
  };
}

function patchOperation(type: ResourceType) {
  const ref = { $ref: `#/components/schemas/${schemaName(type)}` };
  const gvk = { group: type.group, version: type.version, kind: type.kind };
  const parameters = [
    ...(type.namespaced
      ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }]
      : []),
    { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'dryRun', in: 'query', schema: { type: 'string' } },
    { name: 'fieldManager', in: 'query', schema: { type: 'string' } },
    { name: 'fieldValidation', in: 'query', schema: { type: 'string' } },
    { name: 'force', in: 'query', schema: { type: 'boolean' } },
  ];
  return {
    get: {
      operationId: `read${type.kind}`,
      'x-kubernetes-action': 'get',
      'x-kubernetes-group-version-kind': gvk,
      parameters: parameters.slice(0, type.namespaced ? 2 : 1),
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
    },
    patch: {
      operationId: `patch${type.kind}`,
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': gvk,
      parameters,
      requestBody: {
        required: true,
        content: Object.fromEntries(patchTypes(type).map((t) => [t, { schema: { type: 'object' } }])),
      },
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
    },
  };
}

export function groupVersionDocument(catalog: Catalog, group: string, version: string) {
  const types = catalog.inGroupVersion(group, version);
  if (types.length === 0) throw pathNotFound();
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: Object.fromEntries(types.map((t) => [itemPath(t), patchOperation(t)])),
    components: {
      schemas: {
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': objectMetaSchema,
        ...Object.fromEntries(types.map((t) => [schemaName(t), kindSchema(t)])),
      },
    },
  };
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Serialized documents per catalog revision, with their hashes. */
export class OpenApiCache {
  private revision = -1;
  private documents = new Map<string, { body: string; hash: string }>();

  constructor(private readonly catalog: Catalog) {}

  document(group: string, version: string): { body: string; hash: string } {
    this.refresh();
    const key = gvPath(group, version);
    let entry = this.documents.get(key);
    if (!entry) {
      const body = JSON.stringify(groupVersionDocument(this.catalog, group, version));
      entry = { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase().slice(0, 128) };
      this.documents.set(key, entry);
    }
    return entry;
  }

  index() {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const { group, versions } of this.catalog.groups()) {
      for (const version of versions) {
        const key = gvPath(group, version);
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${this.document(group, version).hash}` };
      }
    }
    return { paths };
  }

  private refresh(): void {
    if (this.revision === this.catalog.revision) return;
    this.revision = this.catalog.revision;
    this.documents = new Map();
  }
}

export const OPENAPI_V2_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
