import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  decodeProtobufObject,
  isProtobuf,
  MALFORMED_BODY,
  NOT_PROTOBUF,
  PROTOBUF_CONTENT_TYPE,
  unsupportedKindMessage,
} from './protobuf.ts';

/** Request bodies kubectl/v1.32.4 sent to a recording server on 127.0.0.1 (the command is each test's name). */
function fixture(name: string): Buffer {
  return readFileSync(new URL(`./fixtures/${name}.pb`, import.meta.url));
}

// A minimal protobuf writer, for what kubectl does not send on create.
function varint(value: number | bigint): Buffer {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Buffer.from(bytes);
}
const key = (field: number, wireType: number): Buffer => varint((field << 3) | wireType);
const num = (field: number, value: number | bigint): Buffer => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field: number, value: string | Buffer): Buffer => {
  const content = Buffer.from(value);
  return Buffer.concat([key(field, 2), varint(content.length), content]);
};
const msg = (field: number, ...parts: Buffer[]): Buffer => bytes(field, Buffer.concat(parts));
const entry = (field: number, mapKey: string, value: string | Buffer): Buffer =>
  msg(field, bytes(1, mapKey), bytes(2, value));
const MAGIC = Buffer.from('k8s\0');
const envelope = (apiVersion: string, kind: string, ...raw: Buffer[]): Buffer =>
  Buffer.concat([
    MAGIC,
    msg(1, bytes(1, apiVersion), bytes(2, kind)),
    msg(2, ...raw),
    bytes(3, ''),
    bytes(4, ''),
  ]);

describe('protobuf request bodies captured from kubectl 1.32', () => {
  it('kubectl create namespace demo decodes to the Namespace the JSON API would receive, without gogo zero values', () => {
    assert.deepEqual(decodeProtobufObject(fixture('namespace-demo')), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo' },
      spec: {},
      status: {},
    });
  });

  it('kubectl create configmap --from-literal decodes data as strings', () => {
    assert.deepEqual(decodeProtobufObject(fixture('configmap-settings')), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'default' },
      data: { color: 'blue', size: 'large' },
    });
  });

  it('kubectl create configmap --from-file puts a non-UTF-8 file in binaryData, base64-encoded', () => {
    assert.deepEqual(decodeProtobufObject(fixture('configmap-assets')), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'assets', namespace: 'default' },
      data: { 'greeting.txt': 'hello\n' },
      binaryData: {
        'blob.bin': Buffer.from([0x00, 0xff, 0x10, ...Buffer.from('binary'), 0x80]).toString('base64'),
      },
    });
  });

  it('kubectl create secret generic --from-literal decodes data bytes to base64 strings', () => {
    assert.deepEqual(decodeProtobufObject(fixture('secret-creds')), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'default' },
      data: {
        password: Buffer.from('s3cr3t!').toString('base64'),
        user: Buffer.from('admin').toString('base64'),
      },
    });
  });

  it('kubectl create secret generic --type keeps the type and an empty value as ""', () => {
    assert.deepEqual(decodeProtobufObject(fixture('secret-basic-auth')), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'basic', namespace: 'default' },
      data: { password: '', username: 'YWRtaW4=' },
      type: 'kubernetes.io/basic-auth',
    });
  });

  it('kubectl create role keeps the core group as apiGroups [""]', () => {
    assert.deepEqual(decodeProtobufObject(fixture('role-reader')), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'default' },
      rules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      ],
    });
  });

  it('kubectl create clusterrole --non-resource-url decodes a rule per kind of target', () => {
    assert.deepEqual(decodeProtobufObject(fixture('clusterrole-viewer')), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'viewer' },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ],
    });
  });

  it('kubectl create clusterrole --aggregation-rule decodes the label selector', () => {
    assert.deepEqual(decodeProtobufObject(fixture('clusterrole-monitoring')), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'monitoring' },
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }],
      },
    });
  });

  it('kubectl create rolebinding decodes user, group and service-account subjects and the roleRef', () => {
    assert.deepEqual(decodeProtobufObject(fixture('rolebinding-reader-binding')), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'reader-binding', namespace: 'default' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'ServiceAccount', name: 'bot', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
  });

  it('kubectl create clusterrolebinding decodes to a ClusterRoleBinding', () => {
    assert.deepEqual(decodeProtobufObject(fixture('clusterrolebinding-viewer-binding')), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'viewer-binding' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'viewer' },
    });
  });

  it('kubectl auth can-i create configmaps -n default decodes resourceAttributes and drops the unset status', () => {
    assert.deepEqual(decodeProtobufObject(fixture('selfsubjectaccessreview-create-configmaps')), {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'configmaps' } },
    });
  });

  it('kubectl auth can-i get /healthz decodes nonResourceAttributes', () => {
    assert.deepEqual(decodeProtobufObject(fixture('selfsubjectaccessreview-get-healthz')), {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
  });
});

describe('isProtobuf', () => {
  it('recognises the protobuf media type whatever its case and parameters', () => {
    assert.equal(isProtobuf(PROTOBUF_CONTENT_TYPE), true);
    assert.equal(isProtobuf('Application/VND.Kubernetes.Protobuf ; charset=binary'), true);
  });

  it('does not take JSON, a missing header or a look-alike type for protobuf', () => {
    assert.equal(isProtobuf(undefined), false);
    assert.equal(isProtobuf('application/json'), false);
    assert.equal(isProtobuf('application/vnd.kubernetes.protobuf+json'), false);
  });
});

describe('protobuf decoding of values kubectl does not send on create', () => {
  it('omits the zero values gogo writes for non-pointer fields and keeps pointer fields as sent', () => {
    const body = envelope(
      'v1',
      'ConfigMap',
      // ObjectMeta: a name, gogo's zero values for fields 2–8, then fields that were set.
      msg(
        1,
        bytes(1, 'settings'),
        bytes(2, ''),
        bytes(3, ''),
        bytes(4, ''),
        bytes(5, ''),
        bytes(6, ''),
        num(7, 0),
        msg(8),
        num(10, 0),
        entry(11, 'app', 'web'),
        entry(12, 'note', ''),
        msg(
          13,
          bytes(1, 'Deployment'),
          bytes(3, 'web'),
          bytes(4, 'u-1'),
          bytes(5, 'apps/v1'),
          num(6, 0),
          num(7, 1),
        ),
        bytes(14, 'example.com/cleanup'),
      ),
      msg(2, bytes(1, 'empty')),
      num(4, 0),
    );
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web' },
        annotations: { note: '' },
        ownerReferences: [
          {
            kind: 'Deployment',
            name: 'web',
            uid: 'u-1',
            apiVersion: 'apps/v1',
            controller: false,
            blockOwnerDeletion: true,
          },
        ],
        finalizers: ['example.com/cleanup'],
      },
      data: { empty: '' },
      immutable: false,
    });
  });

  it('writes a set generation and timestamps as RFC 3339 in whole seconds', () => {
    const newYear2025 = 1_735_689_600;
    const body = envelope(
      'v1',
      'Secret',
      msg(
        1,
        bytes(1, 'creds'),
        num(7, 3),
        msg(8, num(1, newYear2025)),
        msg(9, num(1, newYear2025 + 61), num(2, 5e8)),
      ),
      entry(4, 'token', 'plain'),
      num(5, 1),
    );
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'creds',
        generation: 3,
        creationTimestamp: '2025-01-01T00:00:00Z',
        deletionTimestamp: '2025-01-01T00:01:01Z',
      },
      stringData: { token: 'plain' },
      immutable: true,
    });
  });

  it('skips unknown fields of wire types 0, 1, 2 and 5 at every level', () => {
    const unknown = Buffer.concat([
      num(90, 300),
      key(91, 1),
      Buffer.alloc(8, 0xff),
      bytes(92, 'ignored'),
      key(93, 5),
      Buffer.alloc(4, 0xff),
    ]);
    const body = envelope('v1', 'Namespace', unknown, msg(1, unknown, bytes(1, 'demo')), msg(2, unknown));
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo' },
      spec: {},
    });
  });

  it('keeps map entries exactly: a key named __proto__ stays an ordinary entry and a leading BOM stays in the value', () => {
    const object = decodeProtobufObject(
      envelope('v1', 'ConfigMap', entry(2, '__proto__', 'x'), entry(2, 'bom', '\uFEFFtext')),
    );
    assert.deepEqual(Object.entries(object.data as object), [
      ['__proto__', 'x'],
      ['bom', '\uFEFFtext'],
    ]);
    assert.equal(Object.getPrototypeOf(object.data), Object.prototype);
  });
});

describe('protobuf decoding errors', () => {
  it('refuses a kind it has no decoder for with 415, naming the kind and asking for JSON', () => {
    for (const [apiVersion, kind] of [
      ['v1', 'Pod'],
      ['rbac.authorization.k8s.io/v1beta1', 'Role'],
    ]) {
      assert.throws(() => decodeProtobufObject(envelope(apiVersion, kind, msg(1, bytes(1, 'x')))), {
        name: 'ApiError',
        code: 415,
        reason: 'UnsupportedMediaType',
        message: unsupportedKindMessage(apiVersion, kind),
      });
    }
    assert.match(unsupportedKindMessage('v1', 'Pod'), /kind "Pod" \(v1\).*send it as application\/json/);
  });

  it('answers 400 with the real server words to a body without the k8s magic', () => {
    for (const body of [Buffer.from('{"kind":"Namespace"}'), Buffer.alloc(0), Buffer.from('k8s')]) {
      assert.throws(() => decodeProtobufObject(body), {
        name: 'ApiError',
        code: 400,
        reason: 'BadRequest',
        message: NOT_PROTOBUF,
      });
    }
  });

  it('answers 400 to every truncation of a kubectl body up to the end of its object', () => {
    const body = fixture('namespace-demo');
    // A cut right after typeMeta, or after raw, leaves a complete envelope: not a truncation.
    const typeMetaEnd = MAGIC.length + 2 + body[MAGIC.length + 1];
    const trailer = bytes(3, '').length + bytes(4, '').length;
    for (let length = MAGIC.length; length < body.length - trailer; length++) {
      if (length === typeMetaEnd) continue;
      assert.throws(
        () => decodeProtobufObject(body.subarray(0, length)),
        { name: 'ApiError', code: 400, reason: 'BadRequest', message: new RegExp(`^${MALFORMED_BODY}: `) },
        `length ${length}`,
      );
    }
  });

  it('answers 400 saying where a field is truncated, has the wrong wire type, is a group or is not UTF-8', () => {
    const cases: [Buffer, string][] = [
      [
        envelope('v1', 'Namespace', key(1, 2), varint(10), Buffer.from('abc')),
        'Namespace: field 1 is truncated',
      ],
      [
        envelope('v1', 'Namespace', num(1, 7)),
        'Namespace.metadata: expected a length-delimited value, got wire type 0',
      ],
      [
        envelope('v1', 'ConfigMap', bytes(4, 'yes')),
        'ConfigMap.immutable: expected a varint, got wire type 2',
      ],
      [envelope('v1', 'Namespace', key(5, 3)), 'Namespace: field 5 has unsupported wire type 3'],
      [
        envelope('v1', 'Namespace', msg(1, bytes(1, Buffer.from([0xc3, 0x28])))),
        'Namespace.metadata.name: not valid UTF-8',
      ],
      [
        envelope('v1', 'Namespace', msg(1, key(1, 0), Buffer.alloc(11, 0x80))),
        'Namespace.metadata: varint longer than 10 bytes',
      ],
      [Buffer.concat([MAGIC, msg(2, msg(1, bytes(1, 'demo')))]), 'runtime.Unknown.typeMeta: kind is missing'],
    ];
    for (const [body, where] of cases) {
      assert.throws(() => decodeProtobufObject(body), {
        name: 'ApiError',
        code: 400,
        reason: 'BadRequest',
        message: `${MALFORMED_BODY}: ${where}`,
      });
    }
  });
});
