import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { applyStrategicMergePatch, objectMetaStrategy } from './strategic-merge-patch.ts';

const owner = (uid: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  name: `w-${uid}`,
  uid,
  ...extra,
});

const namespace = (metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'shop', labels: { team: 'a' }, ...metadata },
  spec: { finalizers: ['kubernetes'] },
});

function patched(target: unknown, patch: unknown) {
  return applyStrategicMergePatch(target, patch, objectMetaStrategy) as KubeObject;
}

function badRequest(err: unknown) {
  assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  return true;
}

describe('strategic merge patch', () => {
  describe('merge patch semantics by default', () => {
    it('maps merge recursively, null deletes, and a list without patch metadata is replaced', () => {
      const result = patched(namespace(), {
        metadata: { labels: { team: null, env: 'prod' }, annotations: { note: 'x' } },
        spec: { finalizers: ['other'] },
      });
      assert.deepEqual(result, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'shop', labels: { env: 'prod' }, annotations: { note: 'x' } },
        spec: { finalizers: ['other'] },
      });
    });

    it('never mutates the target or the patch', () => {
      const target = namespace({ finalizers: ['a'] });
      const patch = { metadata: { finalizers: ['b'], labels: { team: null } } };
      patched(target, patch);
      assert.deepEqual(target, namespace({ finalizers: ['a'] }));
      assert.deepEqual(patch, { metadata: { finalizers: ['b'], labels: { team: null } } });
    });
  });

  describe('ownerReferences merge by uid', () => {
    it('an element with a known uid merges into it, a new uid joins, and the others stay', () => {
      const target = namespace({ ownerReferences: [owner('u1'), owner('u2')] });
      const result = patched(target, {
        metadata: { ownerReferences: [{ uid: 'u2', controller: true }, owner('u3')] },
      });
      assert.deepEqual(result.metadata.ownerReferences, [
        owner('u1'),
        owner('u2', { controller: true }),
        owner('u3'),
      ]);
    });

    it('$patch: delete on an element removes the owner with that uid', () => {
      const target = namespace({ ownerReferences: [owner('u1'), owner('u2')] });
      const result = patched(target, { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }] } });
      assert.deepEqual(result.metadata.ownerReferences, [owner('u2')]);
    });

    it('a {$patch: replace} element makes the patch list the whole list', () => {
      const target = namespace({ ownerReferences: [owner('u1'), owner('u2')] });
      const result = patched(target, { metadata: { ownerReferences: [{ $patch: 'replace' }, owner('u3')] } });
      assert.deepEqual(result.metadata.ownerReferences, [owner('u3')]);
    });

    it('an element without a uid is 400', () => {
      const target = namespace({ ownerReferences: [owner('u1')] });
      assert.throws(() => patched(target, { metadata: { ownerReferences: [{ name: 'w' }] } }), badRequest);
    });
  });

  describe('finalizers merge as a set', () => {
    it('the patch list is unioned with the live list, without duplicates', () => {
      const result = patched(namespace({ finalizers: ['a', 'b'] }), { metadata: { finalizers: ['b', 'c'] } });
      assert.deepEqual(result.metadata.finalizers, ['a', 'b', 'c']);
    });

    it('without $setElementOrder a brand-new finalizer comes first, as apimachinery orders it', () => {
      const result = patched(namespace({ finalizers: ['a', 'b'] }), { metadata: { finalizers: ['c'] } });
      assert.deepEqual(result.metadata.finalizers, ['c', 'a', 'b']);
    });

    it('$deleteFromPrimitiveList/finalizers removes the listed finalizers and the directive is dropped', () => {
      const result = patched(namespace({ finalizers: ['a', 'b', 'c'] }), {
        metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] },
      });
      assert.deepEqual(result.metadata, { name: 'shop', labels: { team: 'a' }, finalizers: ['a', 'c'] });
    });

    it('$setElementOrder/finalizers orders the merged list, keeping live-only items near their live neighbours', () => {
      const result = patched(namespace({ finalizers: ['1', '2', '9', '3', '4'] }), {
        metadata: { '$setElementOrder/finalizers': ['2', '1', '4', '3'] },
      });
      assert.deepEqual(result.metadata, {
        name: 'shop',
        labels: { team: 'a' },
        finalizers: ['2', '1', '9', '4', '3'],
      });
    });

    it('kubectl apply adding and removing a finalizer: append c, drop b', () => {
      const result = patched(namespace({ finalizers: ['a', 'b'] }), {
        metadata: {
          '$setElementOrder/finalizers': ['a', 'c'],
          '$deleteFromPrimitiveList/finalizers': ['b'],
          finalizers: ['c'],
        },
      });
      assert.deepEqual(result.metadata.finalizers, ['a', 'c']);
    });
  });

  describe('map directives', () => {
    it('$patch: replace on a map replaces it with the patch map, minus the directive', () => {
      const result = patched(namespace(), { metadata: { labels: { $patch: 'replace', env: 'prod' } } });
      assert.deepEqual(result.metadata, { name: 'shop', labels: { env: 'prod' } });
    });

    it('$patch: delete on a map removes the field', () => {
      const result = patched(namespace(), { metadata: { labels: { $patch: 'delete' } } });
      assert.deepEqual(result.metadata, { name: 'shop' });
    });

    it('$patch: merge on a map is an ordinary merge', () => {
      const result = patched(namespace(), { metadata: { labels: { $patch: 'merge', env: 'prod' } } });
      assert.deepEqual(result.metadata.labels, { team: 'a', env: 'prod' });
    });

    it('$retainKeys clears the live fields it does not list, then the patch merges', () => {
      const target = { spec: { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 }, extra: 1 } } };
      const result = applyStrategicMergePatch(
        target,
        { spec: { strategy: { $retainKeys: ['type', 'extra'], type: 'RollingUpdate' } } },
        objectMetaStrategy,
      );
      assert.deepEqual(result, { spec: { strategy: { type: 'RollingUpdate', extra: 1 } } });
    });

    it('a patch field missing from $retainKeys is 400', () => {
      assert.throws(
        () => patched(namespace(), { metadata: { labels: { $retainKeys: ['team'], env: 'prod' } } }),
        badRequest,
      );
    });

    it('an unknown $patch value is 400', () => {
      assert.throws(() => patched(namespace(), { metadata: { labels: { $patch: 'explode' } } }), badRequest);
      assert.throws(
        () =>
          patched(namespace({ ownerReferences: [owner('u1')] }), {
            metadata: { ownerReferences: [{ $patch: 'x' }] },
          }),
        badRequest,
      );
    });

    it('directives never reach the result, even inside a field the live object lacks', () => {
      const result = patched(
        { metadata: { name: 'shop' } },
        {
          metadata: {
            labels: { $patch: 'replace', app: 'x', gone: null },
            '$setElementOrder/finalizers': ['b', 'a'],
            finalizers: ['a', 'b'],
            ownerReferences: [{ $patch: 'delete', uid: 'u9' }, owner('u1')],
          },
        },
      );
      assert.deepEqual(result, {
        metadata: {
          name: 'shop',
          labels: { app: 'x' },
          finalizers: ['b', 'a'],
          ownerReferences: [owner('u1')],
        },
      });
    });

    it('a patch that is not an object is 400', () => {
      assert.throws(() => patched(namespace(), [{ op: 'add' }]), badRequest);
    });
  });
});
