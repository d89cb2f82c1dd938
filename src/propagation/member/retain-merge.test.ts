import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { comparable, isNoOp, listedKeys, retained } from './retain-merge.ts';

const MANAGED_LABELS = 'resourcetemplate.karmada.io/managed-labels';
const MANAGED_ANNOTATIONS = 'resourcetemplate.karmada.io/managed-annotations';

function manifest(
  overrides: Partial<KubeObject['metadata']> = {},
  spec: unknown = { mtu: 1500 },
): KubeObject {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'NetworkContext',
    metadata: {
      name: 'default-dfw',
      namespace: 'ns-a',
      labels: { app: 'web', 'karmada.io/managed': 'true' },
      annotations: {
        note: 'hello',
        [MANAGED_LABELS]: 'app,karmada.io/managed',
        [MANAGED_ANNOTATIONS]: `${MANAGED_ANNOTATIONS},${MANAGED_LABELS},note`,
      },
      ...overrides,
    },
    spec,
  };
}

/** What a member holds after the engine wrote `m`, with server fields and member additions. */
function observedFrom(
  m: KubeObject,
  extra: Partial<KubeObject['metadata']> = {},
  rest: object = {},
): KubeObject {
  return {
    ...structuredClone(m),
    metadata: {
      ...structuredClone(m.metadata),
      uid: 'member-uid',
      resourceVersion: '42',
      generation: 2,
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [{ manager: 'x' }],
      ...extra,
    },
    ...rest,
  };
}

describe('retain merge', () => {
  it('takes the observed resourceVersion, finalizers and ownerReferences wholesale', () => {
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' };
    const m = manifest({ finalizers: ['hub.example/x'] });
    const desired = retained(
      m,
      observedFrom(manifest(), { finalizers: ['cell.example/hold'], ownerReferences: [owner] }),
    );
    assert.equal(desired.metadata.resourceVersion, '42');
    assert.deepEqual(desired.metadata.finalizers, ['cell.example/hold']);
    assert.deepEqual(desired.metadata.ownerReferences, [owner]);
  });

  it('drops finalizers and ownerReferences the member does not have', () => {
    const desired = retained(manifest({ finalizers: ['hub.example/x'] }), observedFrom(manifest()));
    assert.equal(desired.metadata.finalizers, undefined);
    assert.equal(desired.metadata.ownerReferences, undefined);
  });

  it('lets manifest label values win, keeps member-added labels and drops keys the engine no longer writes', () => {
    const observed = observedFrom(
      manifest({
        labels: { app: 'old', gone: 'x', 'karmada.io/managed': 'true' },
        annotations: { [MANAGED_LABELS]: 'app,gone,karmada.io/managed' },
      }),
      { labels: { app: 'old', gone: 'x', local: '1', 'karmada.io/managed': 'true' } },
    );
    const desired = retained(manifest(), observed);
    assert.deepEqual(desired.metadata.labels, { app: 'web', 'karmada.io/managed': 'true', local: '1' });
  });

  it('merges annotations against the observed managed-annotations list', () => {
    const observed = observedFrom(manifest(), {
      annotations: {
        ...manifest().metadata.annotations,
        note: 'changed on the member',
        seen: 'yes',
        [MANAGED_ANNOTATIONS]: `${MANAGED_ANNOTATIONS},${MANAGED_LABELS},note,old-note`,
        'old-note': 'the engine wrote this once',
      },
    });
    const desired = retained(manifest(), observed);
    assert.equal(desired.metadata.annotations!.note, 'hello');
    assert.equal(desired.metadata.annotations!.seen, 'yes');
    assert.equal(desired.metadata.annotations!['old-note'], undefined);
  });

  it('keeps a member label when the observed copy has no managed-labels list (adoption)', () => {
    const unmanaged: KubeObject = {
      ...manifest(),
      metadata: { name: 'default-dfw', namespace: 'ns-a', labels: { team: 'x' }, resourceVersion: '3' },
    };
    const desired = retained(manifest(), unmanaged);
    assert.deepEqual(desired.metadata.labels, { app: 'web', 'karmada.io/managed': 'true', team: 'x' });
  });

  it('takes spec and every other field from the manifest and never carries status', () => {
    const observed = observedFrom(
      manifest(),
      {},
      { spec: { mtu: 9000, extra: true }, status: { phase: 'Ok' } },
    );
    const desired = retained({ ...manifest(), status: { phase: 'hub' } }, observed);
    assert.deepEqual(desired.spec, { mtu: 1500 });
    assert.equal(desired.status, undefined);
  });

  it('does not mutate its arguments', () => {
    const m = manifest();
    const o = observedFrom(manifest(), { labels: { local: '1' } });
    const before = [structuredClone(m), structuredClone(o)];
    retained(m, o);
    assert.deepEqual([m, o], before);
  });

  it('parses a managed-keys list, ignoring empty entries', () => {
    assert.deepEqual([...listedKeys('a,,b,')], ['a', 'b']);
    assert.equal(listedKeys(undefined).size, 0);
  });
});

describe('no-op comparison', () => {
  it('finds nothing to write when the member holds what the engine wrote, plus server fields and status', () => {
    const m = manifest();
    const observed = observedFrom(m, {}, { status: { conditions: [{ type: 'Ready' }] } });
    assert.equal(isNoOp(retained(m, observed), observed), true);
  });

  it('ignores member finalizers, ownerReferences and added labels and annotations', () => {
    const m = manifest();
    const observed = observedFrom(m, {
      finalizers: ['cell.example/hold'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' }],
      labels: { ...m.metadata.labels, local: '1' },
      annotations: { ...m.metadata.annotations, seen: 'yes' },
      deletionTimestamp: '2026-01-01T00:00:01Z',
    });
    assert.equal(isNoOp(retained(m, observed), observed), true);
  });

  it('sees a spec edited on the member', () => {
    const m = manifest();
    const observed = observedFrom(m, {}, { spec: { mtu: 9000 } });
    assert.equal(isNoOp(retained(m, observed), observed), false);
  });

  it('sees a managed label removed or edited on the member', () => {
    const m = manifest();
    const edited = observedFrom(m, { labels: { app: 'other', 'karmada.io/managed': 'true' } });
    assert.equal(isNoOp(retained(m, edited), edited), false);
    const removed = observedFrom(m, { labels: { 'karmada.io/managed': 'true' } });
    assert.equal(isNoOp(retained(m, removed), removed), false);
  });

  it('sees a label the hub no longer writes', () => {
    const before = manifest();
    const observed = observedFrom(before);
    const after = manifest({
      labels: { 'karmada.io/managed': 'true' },
      annotations: { ...before.metadata.annotations, [MANAGED_LABELS]: 'karmada.io/managed' },
    });
    const desired = retained(after, observed);
    assert.equal(isNoOp(desired, observed), false);
    assert.deepEqual(desired.metadata.labels, { 'karmada.io/managed': 'true' });
  });

  it('treats an empty label map like an absent one', () => {
    const m = manifest({ labels: {}, annotations: {} });
    const observed = observedFrom(m);
    delete observed.metadata.labels;
    delete observed.metadata.annotations;
    assert.equal(isNoOp(retained(m, observed), observed), true);
  });

  it('compares the observed copy stripped of server fields and status', () => {
    const observed = observedFrom(manifest(), {}, { status: { a: 1 } });
    const seen = comparable(observed);
    assert.equal(seen.status, undefined);
    assert.equal(seen.metadata.uid, undefined);
    assert.equal(seen.metadata.resourceVersion, '42');
    assert.equal(seen.metadata.managedFields, undefined);
  });
});
