import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { parseApplyBody, serverSideApply } from './apply.ts';

const T1 = '2025-01-01T00:00:00Z';
const T2 = '2025-01-01T00:01:00Z';
const T3 = '2025-01-01T00:02:00Z';

const config = (spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns1', ...(labels ? { labels } : {}) },
  spec,
});

type Applied = ReturnType<typeof config> & { metadata: { managedFields?: Record<string, unknown>[] } };

function managerEntry(result: Record<string, unknown>, manager: string) {
  return (result as Applied).metadata.managedFields?.find((entry) => entry.manager === manager);
}

function badRequest(err: unknown) {
  assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
  assert.equal(err.code, 400);
  return true;
}

describe('server-side apply', () => {
  describe('parseApplyBody', () => {
    it('reads YAML and JSON into an object', () => {
      assert.deepEqual(parseApplyBody('apiVersion: v1\nkind: ConfigMap\ndata:\n  on: yes\n'), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        data: { on: 'yes' },
      });
      assert.deepEqual(parseApplyBody('{"kind":"ConfigMap","data":{"a":"1"}}'), {
        kind: 'ConfigMap',
        data: { a: '1' },
      });
    });

    it('a body that is not an object, not YAML, or several documents is 400', () => {
      assert.throws(() => parseApplyBody('- a\n- b\n'), badRequest);
      assert.throws(() => parseApplyBody(''), badRequest);
      assert.throws(() => parseApplyBody('a: [1, 2\n'), badRequest);
      assert.throws(() => parseApplyBody('a: 1\n---\nb: 2\n'), badRequest);
    });
  });

  it('creating gives the applied object and one Apply entry in FieldsV1 shape', () => {
    const result = serverSideApply(
      undefined,
      config({ color: 'red', ports: [80] }, { app: 'shop' }),
      'ci',
      T1,
    );
    assert.deepEqual(result, {
      ...config({ color: 'red', ports: [80] }, { app: 'shop' }),
      metadata: {
        name: 'w1',
        namespace: 'ns1',
        labels: { app: 'shop' },
        managedFields: [
          {
            manager: 'ci',
            operation: 'Apply',
            apiVersion: 'example.com/v1',
            time: T1,
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': { 'f:color': {}, 'f:ports': {} },
            },
          },
        ],
      },
    });
  });

  it('applying merges maps into the live object and replaces lists whole', () => {
    const live = { ...config({ color: 'red', ports: [80, 443], size: 1 }), status: { ready: true } };
    const result = serverSideApply(live, config({ ports: [8080], color: 'blue' }), 'ci', T1);
    assert.deepEqual(result.spec, { color: 'blue', ports: [8080], size: 1 });
    assert.deepEqual(result.status, { ready: true });
  });

  it('a second apply that omits a field removes it and updates the entry', () => {
    const first = serverSideApply(undefined, config({ color: 'red', size: 1 }), 'ci', T1);
    const second = serverSideApply(first, config({ size: 2 }), 'ci', T2);
    assert.deepEqual(second.spec, { size: 2 });
    assert.deepEqual((second as Applied).metadata.managedFields, [
      {
        manager: 'ci',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: T2,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:size': {} } },
      },
    ]);
  });

  it('a field this manager never applied survives its apply', () => {
    const first = serverSideApply(undefined, config({ color: 'red' }), 'ci', T1);
    const edited = { ...first, spec: { color: 'red', replicas: 3 } };
    const second = serverSideApply(edited, config({}), 'ci', T2);
    assert.deepEqual(second.spec, { replicas: 3 });
  });

  it('a field another Apply manager also owns survives, until that manager lets it go too', () => {
    const byA = serverSideApply(undefined, config({ color: 'red', size: 1 }), 'a', T1);
    const byB = serverSideApply(byA, config({ color: 'red' }), 'b', T2);
    const aAgain = serverSideApply(byB, config({ size: 2 }), 'a', T3);
    assert.deepEqual(aAgain.spec, { color: 'red', size: 2 });
    assert.deepEqual(managerEntry(aAgain, 'b')?.fieldsV1, { 'f:spec': { 'f:color': {} } });
    const bLetsGo = serverSideApply(aAgain, config({ size: 2 }), 'b', T3);
    assert.deepEqual(bLetsGo.spec, { size: 2 });
  });

  it('labels are owned key by key: an omitted label goes, another label stays', () => {
    const first = serverSideApply(undefined, config({}, { app: 'shop', tier: 'web' }), 'ci', T1);
    const labelled = {
      ...first,
      metadata: { ...(first as Applied).metadata, labels: { app: 'shop', tier: 'web', by: 'kubectl-label' } },
    };
    const second = serverSideApply(labelled, config({}, { app: 'shop' }), 'ci', T2);
    assert.deepEqual((second as Applied).metadata.labels, { app: 'shop', by: 'kubectl-label' });
    assert.deepEqual(managerEntry(second, 'ci')?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  });

  it('a map emptied by the removal goes too; name, namespace, apiVersion and kind are never owned', () => {
    const first = serverSideApply(undefined, config({ color: 'red' }), 'ci', T1);
    const second = serverSideApply(
      first,
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } },
      'ci',
      T2,
    );
    assert.deepEqual(second, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'ns1' },
    });
  });

  it('a map the configuration sets empty survives the removal of what was under it', () => {
    const first = serverSideApply(undefined, config({ color: 'red' }), 'ci', T1);
    const second = serverSideApply(first, config({}), 'ci', T2);
    assert.deepEqual(second.spec, {});
    assert.equal((second as Applied).metadata.managedFields, undefined);
  });

  it("other managers' entries are kept as they are", () => {
    const update = {
      manager: 'kubectl-edit',
      operation: 'Update',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    const live = {
      ...config({ color: 'red' }),
      metadata: { name: 'w1', namespace: 'ns1', managedFields: [update] },
    };
    const result = serverSideApply(live, config({ size: 1 }), 'ci', T2);
    assert.deepEqual((result as Applied).metadata.managedFields?.[0], update);
    assert.equal(managerEntry(result, 'ci')?.time, T2);
  });

  it('a status apply owns only status, in its own entry marked with the subresource', () => {
    const live = serverSideApply(undefined, config({ color: 'red' }), 'ci', T1);
    const result = serverSideApply(
      live,
      { ...config({ color: 'ignored' }), status: { phase: 'Ready' } },
      'ci',
      T2,
      'status',
    );
    assert.deepEqual(result.spec, { color: 'red' });
    assert.deepEqual(result.status, { phase: 'Ready' });
    const entries = (result as Applied).metadata.managedFields ?? [];
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[1], {
      manager: 'ci',
      operation: 'Apply',
      apiVersion: 'example.com/v1',
      time: T2,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:phase': {} } },
      subresource: 'status',
    });
  });

  it('never mutates the live object or the configuration', () => {
    const live = serverSideApply(undefined, config({ color: 'red', size: 1 }), 'ci', T1);
    const before = structuredClone(live);
    const applied = config({ size: 2 });
    serverSideApply(live, applied, 'ci', T2);
    assert.deepEqual(live, before);
    assert.deepEqual(applied, config({ size: 2 }));
  });
});
