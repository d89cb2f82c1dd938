/**
 * Server-side printing: the meta.k8s.io/v1 Table that `kubectl get` asks for, with the columns
 * the real API server prints for each kind (spec/kube-api.md §8).
 *
 * Guarantees: the first column is Name (`format: name`, which kubectl prefixes with `kind/`
 * when printing several kinds), except for Events, which print as the real event printer does:
 * Last Seen, Type, Reason, Object, Message, with Name among the `-o wide` (priority 1) columns. A CRD version prints Name plus exactly its
 * `additionalPrinterColumns` (no automatic Age), or Name and Age when it has none. Cells follow
 * the apiextensions table convertor (see `cells.ts`). Every row carries the object as
 * `includeObject` asks, and the Table's `metadata.resourceVersion` is the one given, which
 * `kubectl get -w` resumes from. Column definitions can be left out for the watch events after
 * the first; kubectl keeps the columns it has.
 * Caveat: the Table is always meta.k8s.io/v1, also when a client asked only for v1beta1 (the
 * shapes are the same). Built-in Age columns are typed `date` here where the real printers say
 * `string`; clients print the cell either way.
 */
import { badRequest } from '../errors.ts';
import { objectField, type KubeObject } from '../objects.ts';
import { cellFor, rfc3339Seconds } from './cells.ts';
import { compileJsonPath } from './jsonpath.ts';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Column {
  definition: ColumnDefinition;
  cell(object: KubeObject, now: Date): unknown;
}

/** A CRD version's `additionalPrinterColumns` entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRow {
  cells: unknown[];
  object?: Record<string, unknown>;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion: string; continue?: string };
  columnDefinitions: ColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  includeObject?: IncludeObject;
  resourceVersion: string;
  continue?: string;
  now: Date;
  omitColumnDefinitions?: boolean;
}

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
const NAMESPACE_STATUS_DESCRIPTION = 'The status of the namespace';
const LEASE_HOLDER_DESCRIPTION =
  'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.';
const CONFIGMAP_DATA_DESCRIPTION =
  "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.";
const SECRET_TYPE_DESCRIPTION =
  'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types';
const SECRET_DATA_DESCRIPTION =
  "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4";

const EVENT_DESCRIPTIONS = {
  lastSeen: 'The time at which the most recent occurrence of this event was recorded.',
  type: 'Type of this event (Normal, Warning), new types could be added in the future',
  reason:
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  object: 'The object that this event is about.',
  subobject:
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
  source: 'The component reporting this event. Should be a short machine understandable string.',
  message: 'A human-readable description of the status of this operation.',
  firstSeen: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  count: 'The number of times this event has occurred.',
};

const CUSTOM_COLUMN_DESCRIPTION_PREFIX = 'Custom resource definition column (in JSONPath format): ';
const INCLUDE_OBJECT_VALUES = "must be 'Metadata', 'Object', 'None', or empty";

function column(name: string, type: string, description: string, cell: Column['cell'], priority = 0): Column {
  return { definition: { name, type, format: '', description, priority }, cell };
}

export const nameColumn: Column = {
  definition: { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
  cell: (object) => object.metadata.name ?? '',
};

/** A printer column: its JSONPath is parsed here, so a bad path throws before any row is printed. */
export function printerColumn(spec: PrinterColumn): Column {
  const select = compileJsonPath(spec.jsonPath);
  return {
    definition: {
      name: spec.name,
      type: spec.type,
      format: spec.format ?? '',
      description: spec.description || `${CUSTOM_COLUMN_DESCRIPTION_PREFIX}${spec.jsonPath}`,
      priority: spec.priority ?? 0,
    },
    cell: (object, now) => {
      const matches = select(object);
      return matches.length === 0 ? null : cellFor(spec.type, matches[0], now);
    },
  };
}

export const ageColumn: Column = printerColumn({
  name: 'Age',
  type: 'date',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  jsonPath: '.metadata.creationTimestamp',
});

/** How many distinct printer column lists `customResourceColumns` keeps; past it, it starts afresh. */
export const SHARED_COLUMN_LISTS = 1024;
const sharedColumnLists = new Map<string, Column[]>();

/**
 * Name plus the CRD version's printer columns, or Name and Age when it declares none; shared by
 * content across CRDs and planes, as compiled schemas and CEL expressions are (every project plane
 * stores its own copy of the same CRDs, and each column's compiled JSONPath took about 1 KiB: 50
 * KiB a project plane). A column holds no state between the cells it prints.
 */
export function customResourceColumns(printerColumns: readonly PrinterColumn[] | undefined): Column[] {
  if (!printerColumns || printerColumns.length === 0) return [nameColumn, ageColumn];
  const key = JSON.stringify(printerColumns);
  let columns = sharedColumnLists.get(key);
  if (!columns) {
    columns = [nameColumn, ...printerColumns.map(printerColumn)];
    if (sharedColumnLists.size >= SHARED_COLUMN_LISTS) sharedColumnLists.clear();
    sharedColumnLists.set(key, columns);
  }
  return columns;
}

/** Name and Age, for every kind without columns of its own. */
export const defaultColumns: Column[] = [nameColumn, ageColumn];

function keyCount(...maps: unknown[]): number {
  return maps.reduce<number>(
    (count, map) => count + (typeof map === 'object' && map !== null ? Object.keys(map).length : 0),
    0,
  );
}

/**
 * The fields the event printer reads, from a core v1 Event or an events.k8s.io/v1 one (the two
 * versions of one resource name them differently).
 */
function eventFields(event: Record<string, unknown>) {
  const series = event.series as { count?: number; lastObservedTime?: string } | undefined;
  return {
    involved: (event.involvedObject ?? event.regarding ?? {}) as Record<string, string | undefined>,
    message: (event.message ?? event.note ?? '') as string,
    source: (event.source ?? event.deprecatedSource ?? {}) as { component?: string; host?: string },
    controller: (event.reportingComponent ?? event.reportingController ?? '') as string,
    instance: (event.reportingInstance ?? '') as string,
    first: (event.firstTimestamp ?? event.deprecatedFirstTimestamp) as string | undefined,
    last: (event.lastTimestamp ?? event.deprecatedLastTimestamp) as string | undefined,
    count: (event.count ?? event.deprecatedCount ?? 0) as number,
    eventTime: event.eventTime as string | undefined,
    series,
  };
}

/** How long ago, or `<unknown>` when the time is not set. */
function since(timestamp: string | undefined, now: Date): unknown {
  return timestamp ? cellFor('date', timestamp, now) : '<unknown>';
}

function eventFirstSeen(event: Record<string, unknown>, now: Date): unknown {
  const { first, eventTime } = eventFields(event);
  return since(first ?? eventTime, now);
}

function eventLastSeen(event: Record<string, unknown>, now: Date): unknown {
  const { last, series } = eventFields(event);
  if (series) return since(series.lastObservedTime, now);
  return last ? since(last, now) : eventFirstSeen(event, now);
}

function eventObject(event: Record<string, unknown>): string {
  const { involved } = eventFields(event);
  const kind = (involved.kind ?? '').toLowerCase();
  return involved.name ? `${kind}/${involved.name}` : kind;
}

function eventSource(event: Record<string, unknown>): string {
  const { source, controller, instance } = eventFields(event);
  const component = source.component || controller;
  const host = source.host || instance;
  return host ? `${component}, ${host}` : component;
}

function eventCount(event: Record<string, unknown>): number {
  const { series, count } = eventFields(event);
  if (series) return series.count ?? 0;
  return count || 1;
}

/** The columns the real API server prints for the built-in kinds, keyed by Kind. */
export const builtinColumns: Record<string, Column[]> = {
  Namespace: [
    nameColumn,
    column('Status', 'string', NAMESPACE_STATUS_DESCRIPTION, (ns) => objectField(ns, 'status').phase ?? ''),
    ageColumn,
  ],
  Lease: [
    nameColumn,
    column(
      'Holder',
      'string',
      LEASE_HOLDER_DESCRIPTION,
      (lease) => objectField(lease, 'spec').holderIdentity ?? '',
    ),
    ageColumn,
  ],
  CustomResourceDefinition: [
    nameColumn,
    column('Created At', 'date', CREATION_TIMESTAMP_DESCRIPTION, (crd) =>
      rfc3339Seconds(crd.metadata.creationTimestamp),
    ),
  ],
  ConfigMap: [
    nameColumn,
    column('Data', 'string', CONFIGMAP_DATA_DESCRIPTION, (cm) => keyCount(cm.data, cm.binaryData)),
    ageColumn,
  ],
  Secret: [
    nameColumn,
    column('Type', 'string', SECRET_TYPE_DESCRIPTION, (secret) => secret.type ?? ''),
    column('Data', 'string', SECRET_DATA_DESCRIPTION, (secret) => keyCount(secret.data)),
    ageColumn,
  ],
  Event: [
    column('Last Seen', 'string', EVENT_DESCRIPTIONS.lastSeen, eventLastSeen),
    column('Type', 'string', EVENT_DESCRIPTIONS.type, (event) => event.type ?? ''),
    column('Reason', 'string', EVENT_DESCRIPTIONS.reason, (event) => event.reason ?? ''),
    column('Object', 'string', EVENT_DESCRIPTIONS.object, eventObject),
    column(
      'Subobject',
      'string',
      EVENT_DESCRIPTIONS.subobject,
      (event) => eventFields(event).involved.fieldPath ?? '',
      1,
    ),
    column('Source', 'string', EVENT_DESCRIPTIONS.source, eventSource, 1),
    column('Message', 'string', EVENT_DESCRIPTIONS.message, (event) => eventFields(event).message.trim()),
    column('First Seen', 'string', EVENT_DESCRIPTIONS.firstSeen, eventFirstSeen, 1),
    column('Count', 'string', EVENT_DESCRIPTIONS.count, eventCount, 1),
    { ...nameColumn, definition: { ...nameColumn.definition, priority: 1 } },
  ],
};

/** The `includeObject` query parameter; absent or empty means Metadata. */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: ${INCLUDE_OBJECT_VALUES}`,
  );
}

/** One row per object, in the order given, with the cells of `columns`. */
export function buildTable(columns: Column[], objects: KubeObject[], options: TableOptions): Table {
  const include = options.includeObject ?? 'Metadata';
  const metadata: Table['metadata'] = { resourceVersion: options.resourceVersion };
  if (options.continue) metadata.continue = options.continue;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: options.omitColumnDefinitions ? [] : columns.map((c) => ({ ...c.definition })),
    rows: objects.map((object) => {
      const row: TableRow = { cells: columns.map((c) => c.cell(object, options.now)) };
      if (include === 'Object') row.object = object;
      if (include === 'Metadata') {
        row.object = {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: object.metadata,
        };
      }
      return row;
    }),
  };
}
