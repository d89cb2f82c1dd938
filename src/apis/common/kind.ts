/**
 * Kind definitions: everything a CRD and a client need to know about a kind besides its fields —
 * group, version, names, scope, status subresource and printer columns — beside its schema.
 *
 * Guarantees: `defineKind` fills `apiVersion` and `singular` (the lower-cased kind) and freezes
 * nothing else; the column helpers produce the JSONPaths the API server's table printer reads,
 * so a condition column prints that condition's status or reason, blank while it is absent.
 */
import type { TObject } from '@sinclair/typebox';

export type Scope = 'Namespaced' | 'Cluster';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  /** 1: shown only with `-o wide`. */
  priority?: number;
}

export interface KindDefinition<S extends TObject = TObject> {
  group: string;
  version: string;
  apiVersion: string;
  kind: string;
  plural: string;
  singular: string;
  scope: Scope;
  shortNames: string[];
  categories: string[];
  statusSubresource: boolean;
  printerColumns: PrinterColumn[];
  /** The object's own fields (`spec`, `status`); the header and metadata are Kubernetes'. */
  schema: S;
}

export type KindFields<S extends TObject> = Omit<
  KindDefinition<S>,
  'apiVersion' | 'singular' | 'shortNames' | 'categories'
> &
  Partial<Pick<KindDefinition<S>, 'singular' | 'shortNames' | 'categories'>>;

export function defineKind<S extends TObject>(fields: KindFields<S>): KindDefinition<S> {
  return {
    ...fields,
    apiVersion: `${fields.group}/${fields.version}`,
    singular: fields.singular ?? fields.kind.toLowerCase(),
    shortNames: fields.shortNames ?? [],
    categories: fields.categories ?? [],
  };
}

export function ageColumn(name = 'Age'): PrinterColumn {
  return { name, type: 'date', jsonPath: '.metadata.creationTimestamp' };
}

/** The status (`True`/`False`/`Unknown`) of condition `type`. */
export function conditionStatusColumn(name: string, type = name, priority?: number): PrinterColumn {
  return withPriority(
    { name, type: 'string', jsonPath: `.status.conditions[?(@.type=="${type}")].status` },
    priority,
  );
}

/** The reason of condition `type`. */
export function conditionReasonColumn(name: string, type: string): PrinterColumn {
  return { name, type: 'string', jsonPath: `.status.conditions[?(@.type=="${type}")].reason` };
}

export function fieldColumn(
  name: string,
  jsonPath: string,
  type: PrinterColumn['type'] = 'string',
  priority?: number,
): PrinterColumn {
  return withPriority({ name, type, jsonPath }, priority);
}

function withPriority(column: PrinterColumn, priority: number | undefined): PrinterColumn {
  return priority === undefined ? column : { ...column, priority };
}
