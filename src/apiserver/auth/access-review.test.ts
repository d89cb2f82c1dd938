import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { RevisionLog } from '../storage/revision-log.ts';
import { BOTH_ATTRIBUTES, EXACTLY_ONE_ATTRIBUTES, selfSubjectAccessReview } from './access-review.ts';
import { RbacAuthorizer } from './rbac.ts';

const RBAC = 'rbac.authorization.k8s.io';
const alice = { name: 'alice', groups: [] };

/** alice may create configmaps in "default", patch widgets/status anywhere, and get /healthz. */
function authorizer(): RbacAuthorizer {
  const log = new RevisionLog();
  log.put(`${RBAC}/roles`, 'default/maker', {
    metadata: { namespace: 'default', name: 'maker' },
    rules: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }],
  });
  log.put(`${RBAC}/rolebindings`, 'default/makers', {
    metadata: { namespace: 'default', name: 'makers' },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: 'maker' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  log.put(`${RBAC}/clusterroles`, '/status-and-health', {
    metadata: { name: 'status-and-health' },
    rules: [
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['widgets/status'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    ],
  });
  log.put(`${RBAC}/clusterrolebindings`, '/status-and-health', {
    metadata: { name: 'status-and-health' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'status-and-health' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  return new RbacAuthorizer(log);
}

/** The body `kubectl auth can-i <verb> <resource> -n <namespace>` sends. */
function canI(resourceAttributes: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes },
    status: { allowed: false },
  };
}

describe('self subject access review', () => {
  it('answers allowed with the RBAC reason for what the identity may do', () => {
    const review = canI({ namespace: 'default', verb: 'create', resource: 'configmaps' });
    assert.deepEqual(selfSubjectAccessReview(authorizer(), alice, review), {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'configmaps' } },
      status: {
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "makers/default" of Role "maker" to User "alice"',
      },
    });
  });

  it('answers not allowed with neither reason nor denied when no rule grants it', () => {
    const review = canI({ namespace: 'other', verb: 'create', resource: 'configmaps' });
    assert.deepEqual(selfSubjectAccessReview(authorizer(), alice, review).status, { allowed: false });
  });

  it('answers allowed without a reason for a system:masters identity', () => {
    const admin = { name: 'admin', groups: ['system:masters'] };
    const review = canI({ verb: 'delete', resource: 'namespaces', name: 'kube-system' });
    assert.deepEqual(selfSubjectAccessReview(authorizer(), admin, review).status, { allowed: true });
  });

  it('checks a subresource given in its own field', () => {
    const status = (subresource?: string) =>
      selfSubjectAccessReview(
        authorizer(),
        alice,
        canI({
          namespace: 'ns1',
          verb: 'patch',
          group: 'example.com',
          version: 'v1',
          resource: 'widgets',
          subresource,
        }),
      ).status as { allowed: boolean };
    assert.equal(status('status').allowed, true);
    assert.equal(status(undefined).allowed, false);
  });

  it('checks a non-resource path and verb', () => {
    const review = (path: string) => ({ spec: { nonResourceAttributes: { path, verb: 'get' } } });
    assert.equal(
      (selfSubjectAccessReview(authorizer(), alice, review('/healthz')).status as { allowed: boolean })
        .allowed,
      true,
    );
    assert.deepEqual(selfSubjectAccessReview(authorizer(), alice, review('/metrics')).status, {
      allowed: false,
    });
  });

  it('refuses a spec with neither or both kinds of attributes with 422 Invalid, worded as Kubernetes does', () => {
    assert.throws(
      () => selfSubjectAccessReview(authorizer(), alice, { spec: {} }),
      (error: ApiError) => {
        assert.equal(error.code, 422);
        assert.equal(
          error.message,
          `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": ${EXACTLY_ONE_ATTRIBUTES}`,
        );
        return true;
      },
    );
    assert.throws(
      () =>
        selfSubjectAccessReview(authorizer(), alice, {
          spec: {
            resourceAttributes: { verb: 'get' },
            nonResourceAttributes: { path: '/healthz', verb: 'get' },
          },
        }),
      (error: ApiError) => {
        assert.equal(error.code, 422);
        assert.equal(
          error.message,
          `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: ${BOTH_ATTRIBUTES}`,
        );
        return true;
      },
    );
  });

  it('refuses an attribute that is not a string with 400, worded as the JSON decoder does', () => {
    assert.throws(
      () => selfSubjectAccessReview(authorizer(), alice, canI({ verb: 7, resource: 'configmaps' })),
      (error: ApiError) => {
        assert.equal(error.code, 400);
        assert.equal(
          error.message,
          'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: json: cannot unmarshal number into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string',
        );
        return true;
      },
    );
    assert.throws(
      () => selfSubjectAccessReview(authorizer(), alice, { spec: { nonResourceAttributes: ['/healthz'] } }),
      /cannot unmarshal array into Go struct field SelfSubjectAccessReviewSpec\.spec\.nonResourceAttributes of type v1\.NonResourceAttributes$/,
    );
  });
});
