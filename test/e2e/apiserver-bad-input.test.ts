/**
 * The bad-input catalogue: every malformed or invalid request gets the code Kubernetes gives,
 * a message that names the offending field or value, and leaves the stored objects unchanged.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, type PlaneTarget } from '../support/child-server.ts';
import { identityWithRole } from '../support/hostile.ts';
import { widgetCrd } from '../support/widget-crd.ts';

interface Entry {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string;
  code: number;
  reason: string;
  message: RegExp;
  /** Sent as `binder`, who may write Roles and RoleBindings in `default` and holds nothing else. */
  asBinder?: boolean;
}

const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const RBAC = 'rbac.authorization.k8s.io';

const catalogue: Entry[] = [
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    raw: '{"metadata": {',
    code: 400,
    reason: 'BadRequest',
    message: /could not be decoded as JSON/,
  },
  {
    name: 'a body over 3 MiB',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    raw: `{"metadata":{"name":"big"},"data":{"x":"${'a'.repeat(3 * 1024 * 1024)}"}}`,
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: /Request entity too large/,
  },
  {
    name: 'an unknown kind',
    method: 'GET',
    path: '/apis/example.com/v1/namespaces/default/gadgets',
    code: 404,
    reason: 'NotFound',
    message: /could not find the requested resource/,
  },
  {
    name: 'an unknown version',
    method: 'GET',
    path: '/apis/example.com/v9/namespaces/default/widgets',
    code: 404,
    reason: 'NotFound',
    message: /could not find the requested resource/,
  },
  {
    name: 'a wrong apiVersion in the body',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } },
    code: 400,
    reason: 'BadRequest',
    message: /API version in the data \("v2"\) does not match the expected API version \(v1\)/,
  },
  {
    name: 'a wrong kind in the body',
    method: 'POST',
    path: WIDGETS,
    body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'x' } },
    code: 400,
    reason: 'BadRequest',
    message: /kind in the data \("Gadget"\) does not match the expected kind \(Widget\)/,
  },
  {
    name: 'an invalid object name',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'Not_Valid' } },
    code: 422,
    reason: 'Invalid',
    message: /metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/,
  },
  {
    name: 'a namespace name that is not a DNS label',
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: 'a.b' } },
    code: 422,
    reason: 'Invalid',
    message: /metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label/,
  },
  {
    name: 'no name at all',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: {} },
    code: 422,
    reason: 'Invalid',
    message: /metadata.name: Required value: name or generateName is required/,
  },
  {
    name: 'a body namespace that differs from the URL',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'x', namespace: 'other' } },
    code: 400,
    reason: 'BadRequest',
    message: /namespace of the provided object does not match/,
  },
  {
    name: 'a PUT whose name differs from the URL',
    method: 'PUT',
    path: '/api/v1/namespaces/default/configmaps/kept',
    body: { metadata: { name: 'other' } },
    code: 400,
    reason: 'BadRequest',
    message: /name of the object \(other\) does not match the name on the URL \(kept\)/,
  },
  {
    name: 'a PUT of a custom resource without resourceVersion',
    method: 'PUT',
    path: `${WIDGETS}/w1`,
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 'small' } },
    code: 422,
    reason: 'Invalid',
    message: /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/,
  },
  {
    name: 'a stale resourceVersion',
    method: 'PUT',
    path: '/api/v1/namespaces/default/configmaps/kept',
    body: { metadata: { name: 'kept', resourceVersion: '1' }, data: { v: 'x' } },
    code: 409,
    reason: 'Conflict',
    message: /configmaps "kept": the object has been modified/,
  },
  {
    name: 'a strategic merge patch on a custom resource',
    method: 'PATCH',
    path: `${WIDGETS}/w1`,
    raw: '{"spec":{"size":"large"}}',
    contentType: 'application/strategic-merge-patch+json',
    code: 415,
    reason: 'UnsupportedMediaType',
    message:
      /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
  },
  {
    name: 'a JSON patch whose test fails',
    method: 'PATCH',
    path: `${WIDGETS}/w1`,
    raw: '[{"op":"test","path":"/spec/size","value":"large"},{"op":"replace","path":"/spec/size","value":"medium"}]',
    contentType: 'application/json-patch+json',
    code: 422,
    reason: 'Invalid',
    message: /\/spec\/size/,
  },
  {
    name: 'an apply without fieldManager',
    method: 'PATCH',
    path: `${WIDGETS}/w1`,
    raw: '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"}}',
    contentType: 'application/apply-patch+yaml',
    code: 400,
    reason: 'BadRequest',
    message: /fieldManager: Required value/,
  },
  {
    name: 'an unknown propagationPolicy',
    method: 'DELETE',
    path: '/api/v1/namespaces/default/configmaps/kept',
    body: { propagationPolicy: 'Sideways' },
    code: 422,
    reason: 'Invalid',
    message: /propagationPolicy: Unsupported value: "Sideways"/,
  },
  {
    name: 'a label selector that does not parse',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(b',
    code: 400,
    reason: 'BadRequest',
    message: /unable to parse requirement|found/,
  },
  {
    name: 'a field selector on an unsupported field',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps?fieldSelector=spec.bogus%3Dx',
    code: 400,
    reason: 'BadRequest',
    message: /field label not supported: spec.bogus/,
  },
  {
    name: 'an unknown dryRun value',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps?dryRun=Some',
    body: { metadata: { name: 'x' } },
    code: 400,
    reason: 'BadRequest',
    message: /Invalid dry run option: Some/,
  },
  {
    name: 'an unknown fieldValidation value',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps?fieldValidation=Loose',
    body: { metadata: { name: 'x' } },
    code: 400,
    reason: 'BadRequest',
    message: /fieldValidation: Unsupported value: "Loose"/,
  },
  {
    name: 'a POST to an item path',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps/kept',
    body: { metadata: { name: 'kept' } },
    code: 405,
    reason: 'MethodNotAllowed',
    message: /does not allow this method/,
  },
  {
    name: 'a custom resource violating its schema',
    method: 'POST',
    path: WIDGETS,
    body: {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w2' },
      spec: { size: 'huge', replicas: -1 },
    },
    code: 422,
    reason: 'Invalid',
    message: /spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"/,
  },
  {
    name: 'a custom resource with an unknown field under Strict validation',
    method: 'POST',
    path: `${WIDGETS}?fieldValidation=Strict`,
    body: {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w3' },
      spec: { size: 'small', bogus: 1 },
    },
    code: 400,
    reason: 'BadRequest',
    message: /strict decoding error: unknown field "spec.bogus"/,
  },
  {
    name: 'a change to an immutable field',
    method: 'PATCH',
    path: `${WIDGETS}/w1`,
    raw: '{"spec":{"owner":"mallory"}}',
    contentType: 'application/merge-patch+json',
    code: 422,
    reason: 'Invalid',
    message: /spec.owner: Invalid value: "string": owner is immutable/,
  },
  {
    name: 'a CRD whose name is not plural.group',
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    },
    code: 422,
    reason: 'Invalid',
    message: /metadata.name: Invalid value: "things.example.com": must be spec.names.plural\+"."\+spec.group/,
  },
  // Issue 13: every write bounded, ObjectMeta validated for every kind, the smaller findings.
  {
    name: 'a label key with spaces and punctuation',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'l1', labels: { 'a b/c!': 'x' } } },
    code: 422,
    reason: 'Invalid',
    message:
      /ConfigMap "l1" is invalid: metadata.labels: Invalid value: "a b\/c!": prefix part a lowercase RFC 1123 subdomain/,
  },
  {
    name: 'a label value of 1,000 characters, on a custom resource',
    method: 'POST',
    path: WIDGETS,
    body: {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'l2', labels: { a: 'v'.repeat(1000) } },
    },
    code: 422,
    reason: 'Invalid',
    message:
      /Widget.example.com "l2" is invalid: metadata.labels: Invalid value: "v+": must be no more than 63 characters/,
  },
  {
    name: 'a label whose value is an object',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'l3', labels: { a: { b: 'c' } } } },
    code: 400,
    reason: 'BadRequest',
    message:
      /ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.labels of type string/,
  },
  {
    name: 'annotations of 300 KB',
    method: 'POST',
    path: WIDGETS,
    body: {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'a1', annotations: { a: 'x'.repeat(300_000) } },
    },
    code: 422,
    reason: 'Invalid',
    message: /metadata.annotations: Too long: may not be more than 262144 bytes/,
  },
  {
    name: 'finalizers that are not strings',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'f1', finalizers: [{}] } },
    code: 400,
    reason: 'BadRequest',
    message: /cannot unmarshal object into Go struct field ObjectMeta.metadata.finalizers of type string/,
  },
  {
    name: 'ownerReferences that is a string',
    method: 'POST',
    path: WIDGETS,
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'o1', ownerReferences: 'str' } },
    code: 400,
    reason: 'BadRequest',
    message:
      /cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type \[\]v1.OwnerReference/,
  },
  {
    name: 'an owner reference without a uid',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: {
      metadata: { name: 'o2', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'kept' }] },
    },
    code: 422,
    reason: 'Invalid',
    message: /metadata.ownerReferences\[0\].uid: Invalid value: "": uid must not be empty/,
  },
  {
    name: 'an invalid generateName',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { generateName: 'Bad_' } },
    code: 422,
    reason: 'Invalid',
    message: /metadata.generateName: Invalid value: "Bad_"/,
  },
  {
    name: 'an object over 1.5 MiB',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'huge' }, data: { x: 'a'.repeat(1.6 * 1024 * 1024) } },
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: /ConfigMap "huge" would be \d+ bytes encoded; the limit is 1572864 bytes/,
  },
  {
    name: 'a JSON patch whose copies double the object',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/kept',
    body: [
      { op: 'add', path: '/x', value: Array.from({ length: 100 }, (_, i) => i) },
      ...Array.from({ length: 22 }, () => ({ op: 'copy', from: '/x', path: '/x/-' })),
    ],
    contentType: 'application/json-patch+json',
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: /Unable to complete the copy/,
  },
  {
    name: 'JSON nested 100,000 deep',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    raw: `{"metadata":{"name":"deep"},"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    code: 400,
    reason: 'BadRequest',
    message: /exceeded max depth 1000/,
  },
  {
    name: 'a path with invalid percent-encoding',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps/%ff',
    code: 400,
    reason: 'BadRequest',
    message: /"%ff" is not valid URL encoding/,
  },
  {
    name: 'a body sent as text/plain',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    raw: '{"metadata":{"name":"plain"}}',
    contentType: 'text/plain',
    code: 415,
    reason: 'UnsupportedMediaType',
    message: /unknown format - accepted media types include: application\/json/,
  },
  {
    name: 'a watch from a future resourceVersion',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=999999',
    code: 504,
    reason: 'Timeout',
    message: /Too large resource version: 999999, current: \d+/,
  },
  {
    name: 'ConfigMap data that is a list',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { name: 'd1' }, data: [1] },
    code: 400,
    reason: 'BadRequest',
    message: /cannot unmarshal array into Go struct field ConfigMap.data of type map\[string\]string/,
  },
  {
    name: 'Secret data that is not base64',
    method: 'POST',
    path: '/api/v1/namespaces/default/secrets',
    body: { metadata: { name: 's1' }, data: { password: 'not base64!' } },
    code: 400,
    reason: 'BadRequest',
    message: /illegal base64 data in data\[password\]/,
  },
  {
    name: 'Role rules that are a string',
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    body: { metadata: { name: 'r1' }, rules: 'all' },
    code: 400,
    reason: 'BadRequest',
    message: /cannot unmarshal string into Go struct field Role.rules of type \[\]v1.PolicyRule/,
  },
  {
    name: 'a RoleBinding to a kind that is not a role',
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: {
      metadata: { name: 'b1' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Secret', name: 'x' },
    },
    code: 422,
    reason: 'Invalid',
    message: /roleRef.kind: Unsupported value: "Secret"/,
  },
  {
    name: 'a field given twice under fieldValidation=Strict',
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps?fieldValidation=Strict',
    raw: '{"metadata":{"name":"dup","name":"dup2"},"data":{"a":"1","a":"2"}}',
    code: 400,
    reason: 'BadRequest',
    message:
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.a"$/,
  },
  {
    name: 'an unknown field on a built-in kind under fieldValidation=Strict',
    method: 'POST',
    path: '/api/v1/namespaces?fieldValidation=Strict',
    body: { metadata: { name: 'ns-unknown' }, spec: { foo: 1 } },
    code: 400,
    reason: 'BadRequest',
    message:
      /^Namespace in version "v1" cannot be handled as a Namespace: strict decoding error: unknown field "spec.foo"$/,
  },
  {
    name: 'a field given twice and an unknown field in a merge patch under fieldValidation=Strict',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/kept?fieldValidation=Strict',
    raw: '{"data":{"v":"2","v":"3"},"spec":{"foo":1}}',
    contentType: 'application/merge-patch+json',
    code: 400,
    reason: 'BadRequest',
    message: /strict decoding error: duplicate field "data.v", unknown field "spec"$/,
  },
  {
    name: 'a JSON patch operation with an unknown field under fieldValidation=Strict',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/kept?fieldValidation=Strict',
    raw: '[{"op":"add","path":"/data/x","value":"1","foo":"bar"}]',
    contentType: 'application/json-patch+json',
    code: 400,
    reason: 'BadRequest',
    message: /strict decoding error: json patch unknown field "\[0\].foo"$/,
  },
  {
    name: 'a Lease whose duration is not positive',
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name: 'l0' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 0 } },
    code: 422,
    reason: 'Invalid',
    message:
      /Lease.coordination.k8s.io "l0" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0/,
  },
  {
    name: 'a Lease with negative transitions',
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name: 'l1' }, spec: { leaseTransitions: -1 } },
    code: 422,
    reason: 'Invalid',
    message: /spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0/,
  },
  {
    name: 'a Lease duration given as a string',
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name: 'l2' }, spec: { leaseDurationSeconds: '15' } },
    code: 400,
    reason: 'BadRequest',
    message:
      /^Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32$/,
  },
  {
    name: 'a Lease holderIdentity that is a number',
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name: 'l3' }, spec: { holderIdentity: 5 } },
    code: 400,
    reason: 'BadRequest',
    message: /cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string/,
  },
  {
    name: 'a Lease renewTime that is not a time',
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name: 'l4' }, spec: { renewTime: 'yesterday' } },
    code: 400,
    reason: 'BadRequest',
    message: /parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00"/,
  },
  {
    name: 'a Namespace finalizer that is neither standard nor qualified',
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: 'ns-fin' }, spec: { finalizers: ['bad'] } },
    code: 422,
    reason: 'Invalid',
    message:
      /spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified/,
  },
  {
    name: 'Namespace finalizers given as a string',
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: 'ns-fin2' }, spec: { finalizers: 'kubernetes' } },
    code: 400,
    reason: 'BadRequest',
    message:
      /cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type \[\]v1.FinalizerName/,
  },
  {
    name: 'a core Event about an object in another namespace',
    method: 'POST',
    path: '/api/v1/namespaces/default/events',
    body: {
      metadata: { name: 'e1' },
      involvedObject: { kind: 'ConfigMap', namespace: 'other', name: 'kept' },
      reason: 'Test',
    },
    code: 422,
    reason: 'Invalid',
    message: /involvedObject.namespace: Invalid value: "other": does not match event.namespace/,
  },
  {
    name: 'a core Event whose involvedObject is a string',
    method: 'POST',
    path: '/api/v1/namespaces/default/events',
    body: { metadata: { name: 'e2' }, involvedObject: 'kept' },
    code: 400,
    reason: 'BadRequest',
    message: /cannot unmarshal string into Go struct field Event.involvedObject of type v1.ObjectReference/,
  },
  {
    name: 'an events.k8s.io Event without eventTime and with an unknown type',
    method: 'POST',
    path: '/apis/events.k8s.io/v1/namespaces/default/events',
    body: {
      metadata: { name: 'e3' },
      type: 'Bad',
      reason: 'Test',
      regarding: { kind: 'ConfigMap', name: 'kept' },
    },
    code: 422,
    reason: 'Invalid',
    message: /eventTime: Required value.*type: Invalid value: "": has invalid value: Bad/,
  },
  {
    name: 'an events.k8s.io Event without its reporting controller, setting a deprecated count',
    method: 'POST',
    path: '/apis/events.k8s.io/v1/namespaces/default/events',
    body: {
      metadata: { name: 'e4' },
      eventTime: '2026-12-03T10:00:00.000000Z',
      reportingInstance: 'i',
      action: 'Test',
      reason: 'Test',
      type: 'Normal',
      deprecatedCount: 3,
      regarding: { kind: 'ConfigMap', namespace: 'default', name: 'kept' },
    },
    code: 422,
    reason: 'Invalid',
    message: /reportingController: Required value.*count: Invalid value: "": needs to be unset/,
  },
  {
    name: 'a Role granting * on * by one who holds less (escalation)',
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    body: { metadata: { name: 'all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    asBinder: true,
    code: 403,
    reason: 'Forbidden',
    message:
      /^roles.rbac.authorization.k8s.io "all" is forbidden: user "binder" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held/,
  },
  {
    name: 'a RoleBinding to the all-powerful ClusterRole by one who may not bind it (escalation)',
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: {
      metadata: { name: 'take-all' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'everything' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'binder' }],
    },
    asBinder: true,
    code: 403,
    reason: 'Forbidden',
    message:
      /^rolebindings.rbac.authorization.k8s.io "take-all" is forbidden: user "binder" .* is attempting to grant RBAC permissions not currently held/,
  },
];

describe('bad input', () => {
  let t: TestServer;
  let target: PlaneTarget;
  let binder: PlaneTarget;

  before(async () => {
    t = await startTestServer(['hub']);
    target = {
      base: t.server.url('hub'),
      token: t.server.adminToken,
      ca: t.server.certificates.caCertPem,
      agent: new Agent({ keepAlive: true }),
    };
    const crd = widgetCrd({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'string', enum: ['small', 'medium', 'large'] },
            replicas: { type: 'integer', minimum: 0 },
            owner: {
              type: 'string',
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }],
            },
          },
        },
      },
    });
    assert.equal(
      (await call(target, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
      201,
    );
    assert.equal(
      (
        await call(target, 'POST', WIDGETS, {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w1' },
          spec: { size: 'small', owner: 'alice' },
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await call(target, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: 'kept' },
          data: { v: '1' },
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await call(target, 'POST', `/apis/${RBAC}/v1/clusterroles`, {
          metadata: { name: 'everything' },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
        })
      ).status,
      201,
    );
    binder = await identityWithRole(t.server, 'hub', 'default', 'binder', [
      {
        apiGroups: [RBAC],
        resources: ['roles', 'rolebindings'],
        verbs: ['create', 'update', 'patch', 'get'],
      },
    ]);
  });
  after(async () => {
    target.agent.destroy();
    binder.agent.destroy();
    await t.stop();
  });

  for (const entry of catalogue) {
    it(`answers ${entry.code} ${entry.reason} to ${entry.name}, naming the problem, and stores nothing`, async () => {
      const plane = t.server.plane('hub')!;
      const revision = plane.log.revision;
      const stored = () =>
        ['/configmaps', 'example.com/widgets', `${RBAC}/roles`, `${RBAC}/rolebindings`]
          .map((resource) => JSON.stringify(plane.log.list(resource)))
          .join('|');
      const before = stored();
      const as = entry.asBinder ? binder : target;
      const res = await call(as, entry.method, entry.path, entry.raw ?? entry.body, entry.contentType);
      assert.equal(res.status, entry.code, res.body);
      const status = JSON.parse(res.body);
      assert.equal(status.kind, 'Status');
      assert.equal(status.reason, entry.reason);
      assert.equal(status.code, entry.code);
      assert.match(status.message, entry.message);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(plane.log.revision, revision, 'no write happened');
      assert.equal(stored(), before);
    });
  }
});
