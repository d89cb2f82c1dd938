/**
 * Protobuf request bodies: turns the `application/vnd.kubernetes.protobuf` body that kubectl 1.32's
 * typed clients send (`create namespace|configmap|secret`, the RBAC `create` verbs, `auth can-i`)
 * into the JSON object the JSON API would have received (spec/kube-api.md §4.2).
 *
 * Guarantees:
 * - The body is the magic `k8s\0` and a `runtime.Unknown` envelope; the object carries `apiVersion`
 *   and `kind` from its typeMeta. `contentEncoding`/`contentType` are ignored, as the real server
 *   ignores them.
 * - Zero values follow gogo-protobuf, which writes every non-pointer field: a singular string `""`,
 *   `generation: 0` and an empty `Time` mean unset and are omitted. Pointer fields (`immutable`,
 *   `controller`, `blockOwnerDeletion`, `deletionGracePeriodSeconds`) are kept as sent, `false` and
 *   `0` included. Elements of string lists and map values are kept even when empty (`apiGroups: [""]`
 *   is the core group). A nested message on the wire becomes an object even when empty (`spec: {}`).
 * - `bytes` map values (Secret `data`, ConfigMap `binaryData`) become base64 strings; timestamps
 *   become RFC 3339 in UTC with second precision, as `metav1.Time` is written in JSON.
 * - Unknown fields of wire types 0, 1, 2 and 5 are skipped.
 * - A kind without a decoder here → 415 UnsupportedMediaType naming it; wrong magic, a truncated
 *   body, a known field with the wrong wire type, groups (wire types 3, 4) or a string that is not
 *   UTF-8 → 400 BadRequest saying where.
 *
 * Caveats: fields kubectl never sends on create are skipped like unknown ones: `managedFields`,
 * Namespace `status.conditions`, SelfSubjectAccessReview `status` and the 1.31
 * `fieldSelector`/`labelSelector` of resourceAttributes. A singular field sent twice keeps its last
 * value; a nested message sent twice is replaced, not merged as gogo would.
 */
import { ApiError, badRequest } from '../errors.ts';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** `k8s\0`, the prefix of every Kubernetes protobuf body. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The real apiserver's words for a body without the magic prefix. */
export const NOT_PROTOBUF =
  'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]';

export const MALFORMED_BODY = 'the protobuf request body is malformed';

export function unsupportedKindMessage(apiVersion: string, kind: string): string {
  return `the server cannot decode kind "${kind}" (${apiVersion}) from ${PROTOBUF_CONTENT_TYPE}: send it as application/json`;
}

export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.split(';')[0].trim().toLowerCase() === PROTOBUF_CONTENT_TYPE;
}

export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, MAGIC.length).equals(MAGIC)) throw badRequest(NOT_PROTOBUF);
  const { apiVersion, kind, raw } = readEnvelope(body.subarray(MAGIC.length));
  const schema = KINDS.get(`${apiVersion}/${kind}`);
  if (!schema) throw new ApiError(415, 'UnsupportedMediaType', unsupportedKindMessage(apiVersion, kind));
  return { apiVersion, kind, ...decodeMessage(raw, schema, kind) };
}

/** `runtime.Unknown{1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType}`. */
function readEnvelope(bytes: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  const path = 'runtime.Unknown';
  let typeMeta: JsonObject = {};
  let raw: Buffer = Buffer.alloc(0);
  for (const field of readFields(bytes, path)) {
    if (field.number === 1) {
      const at = `${path}.typeMeta`;
      typeMeta = decodeMessage(bytesOf(field, at), { 1: text('apiVersion'), 2: text('kind') }, at);
    } else if (field.number === 2) {
      raw = bytesOf(field, `${path}.raw`);
    }
  }
  const { apiVersion = '', kind = '' } = typeMeta as { apiVersion?: string; kind?: string };
  if (kind === '') throw malformed(`${path}.typeMeta`, 'kind is missing');
  return { apiVersion, kind, raw };
}

// ---- wire format -------------------------------------------------------------------------------

type WireField =
  | { number: number; wireType: 0; value: bigint }
  | { number: number; wireType: 2; value: Buffer }
  | { number: number; wireType: 1 | 5 };

function malformed(path: string, detail: string): ApiError {
  return badRequest(`${MALFORMED_BODY}: ${path}: ${detail}`);
}

/** Splits one message into its fields, in wire order. */
function readFields(bytes: Buffer, path: string): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (offset >= bytes.length) throw malformed(path, 'truncated varint');
      const byte = bytes[offset++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, value);
    }
    throw malformed(path, 'varint longer than 10 bytes');
  };
  const take = (length: bigint, number: number): Buffer => {
    if (length > BigInt(bytes.length - offset)) throw malformed(path, `field ${number} is truncated`);
    offset += Number(length);
    return bytes.subarray(offset - Number(length), offset);
  };
  while (offset < bytes.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (number === 0) throw malformed(path, 'field number 0');
    switch (wireType) {
      case 0:
        fields.push({ number, wireType, value: varint() });
        break;
      case 2:
        fields.push({ number, wireType, value: take(varint(), number) });
        break;
      case 1:
      case 5:
        take(wireType === 1 ? 8n : 4n, number);
        fields.push({ number, wireType });
        break;
      default:
        throw malformed(path, `field ${number} has unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

function bytesOf(field: WireField, path: string): Buffer {
  if (field.wireType !== 2) {
    throw malformed(path, `expected a length-delimited value, got wire type ${field.wireType}`);
  }
  return field.value;
}

function varintOf(field: WireField, path: string): bigint {
  if (field.wireType !== 0) throw malformed(path, `expected a varint, got wire type ${field.wireType}`);
  return field.value;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8(bytes: Buffer, path: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw malformed(path, 'not valid UTF-8');
  }
}

function int64(value: bigint): number {
  return Number(BigInt.asIntN(64, value));
}

/** `metav1.Time` as JSON writes it: RFC 3339, UTC, whole seconds; years 0–9999 as Go allows. */
function rfc3339(seconds: number, path: string): string {
  const time = new Date(seconds * 1000);
  const year = time.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) {
    throw malformed(path, `timestamp ${seconds} out of range`);
  }
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---- field decoders ----------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;
type FieldDecoder = (into: JsonObject, field: WireField, path: string) => void;
type MessageSchema = Partial<Record<number, FieldDecoder>>;

function decodeMessage(bytes: Buffer, schema: MessageSchema, path: string): JsonObject {
  const into: JsonObject = {};
  for (const field of readFields(bytes, path)) schema[field.number]?.(into, field, path);
  return into;
}

function append(into: JsonObject, name: string, value: unknown): void {
  ((into[name] ??= []) as unknown[]).push(value);
}

/** A decoder for the field `name`, given the field and its path (`ConfigMap.metadata.name`). */
function fieldNamed(
  name: string,
  decode: (into: JsonObject, field: WireField, at: string) => void,
): FieldDecoder {
  return (into, wire, path) => decode(into, wire, `${path}.${name}`);
}

/** A non-pointer string: gogo always writes it, so `""` means unset. */
const text = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    const value = utf8(bytesOf(wire, at), at);
    if (value !== '') into[name] = value;
  });

const texts = (name: string) =>
  fieldNamed(name, (into, wire, at) => append(into, name, utf8(bytesOf(wire, at), at)));

const base64 = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    into[name] = bytesOf(wire, at).toString('base64');
  });

const optionalBool = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    into[name] = varintOf(wire, at) !== 0n;
  });

/** A non-pointer integer: gogo always writes it, so `0` means unset. */
const integer = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    const value = int64(varintOf(wire, at));
    if (value !== 0) into[name] = value;
  });

const optionalInteger = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    into[name] = int64(varintOf(wire, at));
  });

/** `Time{1 seconds, 2 nanos}`; the zero Time is written as an empty message. */
const time = (name: string) =>
  fieldNamed(name, (into, wire, at) => {
    const bytes = bytesOf(wire, at);
    if (bytes.length === 0) return;
    const { seconds = 0 } = decodeMessage(bytes, { 1: optionalInteger('seconds') }, at);
    into[name] = rfc3339(seconds as number, at);
  });

const message = (name: string, schema: MessageSchema) =>
  fieldNamed(name, (into, wire, at) => {
    into[name] = decodeMessage(bytesOf(wire, at), schema, at);
  });

const messages = (name: string, schema: MessageSchema) =>
  fieldNamed(name, (into, wire, at) => append(into, name, decodeMessage(bytesOf(wire, at), schema, at)));

/** `map<string, V>`, written as repeated `{1 key, 2 value}` entries; an absent part is its zero value. */
const map = (name: string, value: FieldDecoder) =>
  fieldNamed(name, (into, wire, at) => {
    const entry = decodeMessage(bytesOf(wire, at), { 1: text('key'), 2: value }, at);
    // defineProperty, so that a key such as `__proto__` stays an ordinary entry, as JSON.parse makes it.
    Object.defineProperty((into[name] ??= {}) as JsonObject, (entry.key ?? '') as string, {
      value: entry.value ?? '',
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });

// ---- kinds (field numbers from the generated.proto files of k8s.io/api and apimachinery) --------

const OWNER_REFERENCE: MessageSchema = {
  1: text('kind'),
  3: text('name'),
  4: text('uid'),
  5: text('apiVersion'),
  6: optionalBool('controller'),
  7: optionalBool('blockOwnerDeletion'),
};

const METADATA = message('metadata', {
  1: text('name'),
  2: text('generateName'),
  3: text('namespace'),
  4: text('selfLink'),
  5: text('uid'),
  6: text('resourceVersion'),
  7: integer('generation'),
  8: time('creationTimestamp'),
  9: time('deletionTimestamp'),
  10: optionalInteger('deletionGracePeriodSeconds'),
  11: map('labels', text('value')),
  12: map('annotations', text('value')),
  13: messages('ownerReferences', OWNER_REFERENCE),
  14: texts('finalizers'),
});

const NAMESPACE: MessageSchema = {
  1: METADATA,
  2: message('spec', { 1: texts('finalizers') }),
  3: message('status', { 1: text('phase') }),
};

const CONFIG_MAP: MessageSchema = {
  1: METADATA,
  2: map('data', text('value')),
  3: map('binaryData', base64('value')),
  4: optionalBool('immutable'),
};

const SECRET: MessageSchema = {
  1: METADATA,
  2: map('data', base64('value')),
  3: text('type'),
  4: map('stringData', text('value')),
  5: optionalBool('immutable'),
};

const ROLE: MessageSchema = {
  1: METADATA,
  2: messages('rules', {
    1: texts('verbs'),
    2: texts('apiGroups'),
    3: texts('resources'),
    4: texts('resourceNames'),
    5: texts('nonResourceURLs'),
  }),
};

const LABEL_SELECTOR: MessageSchema = {
  1: map('matchLabels', text('value')),
  2: messages('matchExpressions', { 1: text('key'), 2: text('operator'), 3: texts('values') }),
};

const CLUSTER_ROLE: MessageSchema = {
  ...ROLE,
  3: message('aggregationRule', { 1: messages('clusterRoleSelectors', LABEL_SELECTOR) }),
};

const ROLE_BINDING: MessageSchema = {
  1: METADATA,
  2: messages('subjects', { 1: text('kind'), 2: text('apiGroup'), 3: text('name'), 4: text('namespace') }),
  3: message('roleRef', { 1: text('apiGroup'), 2: text('kind'), 3: text('name') }),
};

const SELF_SUBJECT_ACCESS_REVIEW: MessageSchema = {
  1: METADATA,
  2: message('spec', {
    1: message('resourceAttributes', {
      1: text('namespace'),
      2: text('verb'),
      3: text('group'),
      4: text('version'),
      5: text('resource'),
      6: text('subresource'),
      7: text('name'),
    }),
    2: message('nonResourceAttributes', { 1: text('path'), 2: text('verb') }),
  }),
};

const SERVICE_ACCOUNT: MessageSchema = {
  1: METADATA,
  2: messages('secrets', {
    1: text('kind'),
    2: text('namespace'),
    3: text('name'),
    4: text('uid'),
    5: text('apiVersion'),
    6: text('resourceVersion'),
    7: text('fieldPath'),
  }),
  3: messages('imagePullSecrets', { 1: text('name') }),
  4: optionalBool('automountServiceAccountToken'),
};

const TOKEN_REQUEST: MessageSchema = {
  1: METADATA,
  2: message('spec', {
    1: texts('audiences'),
    3: message('boundObjectRef', { 1: text('kind'), 2: text('apiVersion'), 3: text('name'), 4: text('uid') }),
    4: optionalInteger('expirationSeconds'),
  }),
};

const SELF_SUBJECT_RULES_REVIEW: MessageSchema = {
  1: METADATA,
  2: message('spec', { 1: text('namespace') }),
};

const KINDS = new Map<string, MessageSchema>([
  ['v1/Namespace', NAMESPACE],
  ['v1/ConfigMap', CONFIG_MAP],
  ['v1/Secret', SECRET],
  ['rbac.authorization.k8s.io/v1/Role', ROLE],
  ['rbac.authorization.k8s.io/v1/ClusterRole', CLUSTER_ROLE],
  ['rbac.authorization.k8s.io/v1/RoleBinding', ROLE_BINDING],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', ROLE_BINDING],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', SELF_SUBJECT_ACCESS_REVIEW],
  ['v1/ServiceAccount', SERVICE_ACCOUNT],
  ['authentication.k8s.io/v1/TokenRequest', TOKEN_REQUEST],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', SELF_SUBJECT_RULES_REVIEW],
]);
