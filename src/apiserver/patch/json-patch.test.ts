import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { applyJsonPatch } from './json-patch.ts';

const widget = () => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', resourceVersion: '7', labels: { app: 'shop' } },
  spec: { color: 'red', ports: [80, 443] },
});

function rejection(code: number, reason: string, message?: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.reason, reason);
    if (message !== undefined) assert.equal(err.message, message);
    return true;
  };
}

describe('json patch', () => {
  describe('operations', () => {
    it('add sets a new field, inserts into a list at an index, and appends with "-"', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'add', path: '/spec/size', value: 3 },
        { op: 'add', path: '/spec/ports/1', value: 8080 },
        { op: 'add', path: '/spec/ports/-', value: 9090 },
      ]);
      assert.deepEqual((result as ReturnType<typeof widget>).spec, {
        color: 'red',
        ports: [80, 8080, 443, 9090],
        size: 3,
      });
    });

    it('add on an existing field replaces its value', () => {
      const result = applyJsonPatch(widget(), [{ op: 'add', path: '/spec/color', value: 'blue' }]);
      assert.equal((result as ReturnType<typeof widget>).spec.color, 'blue');
    });

    it('remove deletes a field and a list element', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'remove', path: '/metadata/labels' },
        { op: 'remove', path: '/spec/ports/0' },
      ]) as ReturnType<typeof widget>;
      assert.deepEqual(result.metadata, { name: 'w1', resourceVersion: '7' });
      assert.deepEqual(result.spec.ports, [443]);
    });

    it('replace swaps an existing value, the empty pointer the whole document', () => {
      const replaced = applyJsonPatch(widget(), [{ op: 'replace', path: '/spec/ports/1', value: 8443 }]);
      assert.deepEqual((replaced as ReturnType<typeof widget>).spec.ports, [80, 8443]);
      assert.deepEqual(applyJsonPatch(widget(), [{ op: 'replace', path: '', value: { a: 1 } }]), { a: 1 });
    });

    it('move takes the value away from "from" and puts it at "path"', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'move', from: '/spec/color', path: '/metadata/labels/color' },
      ]);
      assert.deepEqual(result, {
        ...widget(),
        metadata: { name: 'w1', resourceVersion: '7', labels: { app: 'shop', color: 'red' } },
        spec: { ports: [80, 443] },
      });
    });

    it('copy duplicates a value, and the copy is independent of the original', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'copy', from: '/spec/ports', path: '/spec/backup' },
        { op: 'add', path: '/spec/backup/-', value: 22 },
      ]) as { spec: { ports: number[]; backup: number[] } };
      assert.deepEqual(result.spec.ports, [80, 443]);
      assert.deepEqual(result.spec.backup, [80, 443, 22]);
    });

    it('test passes on an equal value and lets the following operations run', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'test', path: '/metadata/resourceVersion', value: '7' },
        { op: 'test', path: '/spec', value: { ports: [80, 443], color: 'red' } },
        { op: 'replace', path: '/spec/color', value: 'green' },
      ]);
      assert.equal((result as ReturnType<typeof widget>).spec.color, 'green');
    });

    it('test for null passes on an absent field, as the Go library: "nobody has set it yet"', () => {
      const result = applyJsonPatch(widget(), [
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: ['example.com/mine'] },
      ]) as { metadata: { finalizers: string[] } };
      assert.deepEqual(result.metadata.finalizers, ['example.com/mine']);
    });
  });

  describe('pointers', () => {
    it('~1 stands for "/" and ~0 for "~" in a token', () => {
      const target = { metadata: { annotations: { 'example.com/owner': 'a', 'x~y': 'b' } } };
      const result = applyJsonPatch(target, [
        { op: 'replace', path: '/metadata/annotations/example.com~1owner', value: 'c' },
        { op: 'remove', path: '/metadata/annotations/x~0y' },
        { op: 'add', path: '/metadata/annotations/~01', value: 'tilde-one' },
      ]);
      assert.deepEqual(result, {
        metadata: { annotations: { 'example.com/owner': 'c', '~1': 'tilde-one' } },
      });
    });

    it('a field named __proto__ is an ordinary field, not the prototype', () => {
      const result = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
      assert.deepEqual(Object.keys(result as object), ['__proto__']);
      assert.equal((result as { polluted?: boolean }).polluted, undefined);
    });
  });

  describe('atomicity', () => {
    it('a failing operation leaves the input as it was, even after earlier operations succeeded', () => {
      const target = widget();
      const before = structuredClone(target);
      assert.throws(
        () =>
          applyJsonPatch(target, [
            { op: 'replace', path: '/spec/color', value: 'blue' },
            { op: 'remove', path: '/spec/ports/0' },
            { op: 'test', path: '/metadata/resourceVersion', value: '8' },
          ]),
        rejection(422, 'Invalid'),
      );
      assert.deepEqual(target, before);
    });

    it('a successful patch returns a new document and never mutates the input or the patch', () => {
      const target = widget();
      const patch = [{ op: 'add', path: '/spec/extra', value: { nested: [1] } }];
      const result = applyJsonPatch(target, patch) as { spec: { extra: { nested: number[] } } };
      result.spec.extra.nested.push(2);
      assert.deepEqual(target, widget());
      assert.deepEqual(patch[0].value, { nested: [1] });
    });

    it('shares with the target what the patch did not change, and copies what it changed on the way', () => {
      const target = widget();
      const result = applyJsonPatch(target, [
        { op: 'test', path: '/metadata/labels', value: { app: 'shop' } },
        { op: 'add', path: '/metadata/labels/tier', value: 'web' },
      ]) as ReturnType<typeof widget>;
      assert.equal(result.spec, target.spec);
      assert.notEqual(result.metadata, target.metadata);
      assert.notEqual(result.metadata.labels, target.metadata.labels);
      assert.deepEqual(result.metadata.labels, { app: 'shop', tier: 'web' });
      assert.deepEqual(target, widget());
    });

    it('changes no input when a later operation writes under a value an earlier one moved or added', () => {
      const deepFreeze = <T>(value: T): T => {
        if (typeof value === 'object' && value !== null) Object.values(value).forEach(deepFreeze);
        return Object.freeze(value);
      };
      // Frozen: any write to the target or the patch throws.
      const target = deepFreeze(widget());
      const patch = deepFreeze([
        { op: 'move', from: '/spec/ports', path: '/ports' },
        { op: 'add', path: '/ports/-', value: 8080 },
        { op: 'add', path: '/extra', value: { nested: { a: 1 } } },
        { op: 'add', path: '/extra/nested/b', value: 2 },
        { op: 'copy', from: '/metadata/labels', path: '/spec/labels' },
        { op: 'remove', path: '/spec/labels/app' },
      ]);
      const result = applyJsonPatch(target, patch, 1024 * 1024);
      assert.deepEqual(result, {
        ...widget(),
        spec: { color: 'red', labels: {} },
        ports: [80, 443, 8080],
        extra: { nested: { a: 1, b: 2 } },
      });
      assert.deepEqual(target, widget());
    });
  });

  describe('operations that do not apply are 422 Invalid with the patch error', () => {
    it('a failed test', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }]),
        rejection(422, 'Invalid', 'testing value /metadata/resourceVersion failed: test operation failed'),
      );
    });

    it('a test of a missing field for a value other than null', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'test', path: '/spec/x', value: 'red' }]),
        rejection(422, 'Invalid', 'testing value /spec/x failed: test operation failed'),
      );
    });

    it('a test for null of a field that is present, or under a missing parent', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'test', path: '/spec/color', value: null }]),
        rejection(422, 'Invalid', 'testing value /spec/color failed: test operation failed'),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'test', path: '/status/x', value: null }]),
        rejection(422, 'Invalid', 'test operation does not apply: is missing path: /status/x: missing value'),
      );
    });

    it('remove of a missing field', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'remove', path: '/spec/x' }]),
        rejection(
          422,
          'Invalid',
          'remove operation does not apply: doc is missing path: "/spec/x": missing value',
        ),
      );
    });

    it('replace of a missing field', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'replace', path: '/spec/x', value: 1 }]),
        rejection(
          422,
          'Invalid',
          'replace operation does not apply: doc is missing key: /spec/x: missing value',
        ),
      );
    });

    it('add under a missing parent', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'add', path: '/status/phase', value: 'Ready' }]),
        rejection(
          422,
          'Invalid',
          'add operation does not apply: doc is missing path: "/status/phase": missing value',
        ),
      );
    });

    it('an index past the end of a list', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'add', path: '/spec/ports/3', value: 1 }]),
        rejection(
          422,
          'Invalid',
          "error in add for path: '/spec/ports/3': Unable to access invalid index: 3: invalid index referenced",
        ),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'remove', path: '/spec/ports/2' }]),
        rejection(
          422,
          'Invalid',
          "error in remove for path: '/spec/ports/2': Unable to access invalid index: 2: invalid index referenced",
        ),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'replace', path: '/spec/ports/-', value: 1 }]),
        rejection(422, 'Invalid'),
      );
    });

    it('move and copy from a missing field, and move into its own child', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'move', from: '/spec/x', path: '/spec/y' }]),
        rejection(
          422,
          'Invalid',
          'move operation does not apply: doc is missing from path: /spec/x: missing value',
        ),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'copy', from: '/spec/x', path: '/spec/y' }]),
        rejection(
          422,
          'Invalid',
          'copy operation does not apply: doc is missing from path: /spec/x: missing value',
        ),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'move', from: '/spec', path: '/spec/inner' }]),
        rejection(422, 'Invalid'),
      );
    });
  });

  describe('patches that cannot be decoded are 400 BadRequest', () => {
    it('a patch that is not a list', () => {
      assert.throws(
        () => applyJsonPatch(widget(), { op: 'add', path: '/a', value: 1 }),
        rejection(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'),
      );
    });

    it('an operation that is not an object', () => {
      assert.throws(() => applyJsonPatch(widget(), ['add']), rejection(400, 'BadRequest'));
    });

    it('an unknown or missing op', () => {
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'merge', path: '/a', value: 1 }]),
        rejection(400, 'BadRequest', 'Unexpected kind: merge'),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ path: '/a', value: 1 }]),
        rejection(400, 'BadRequest', 'Unexpected kind: unknown'),
      );
    });

    it('a missing path, from or value, and a pointer that does not start with "/"', () => {
      assert.throws(() => applyJsonPatch(widget(), [{ op: 'remove' }]), rejection(400, 'BadRequest'));
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'copy', path: '/a' }]),
        rejection(400, 'BadRequest'),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'add', path: '/a' }]),
        rejection(400, 'BadRequest'),
      );
      assert.throws(
        () => applyJsonPatch(widget(), [{ op: 'add', path: 'spec/a', value: 1 }]),
        rejection(400, 'BadRequest'),
      );
    });

    it('a malformed operation late in the patch stops it before any operation runs', () => {
      const target = widget();
      assert.throws(
        () =>
          applyJsonPatch(target, [
            { op: 'remove', path: '/spec/x' },
            { op: 'bogus', path: '/a' },
          ]),
        rejection(400, 'BadRequest'),
      );
    });
  });

  describe('size', () => {
    it('more than 10000 operations is 413 RequestEntityTooLarge', () => {
      const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Widget' }));
      assert.throws(
        () => applyJsonPatch(widget(), patch),
        rejection(
          413,
          'RequestEntityTooLarge',
          'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
        ),
      );
    });

    it('exactly 10000 operations apply', () => {
      const patch = Array.from({ length: 10000 }, () => ({ op: 'test', path: '/kind', value: 'Widget' }));
      assert.deepEqual(applyJsonPatch(widget(), patch), widget());
    });
  });
});
