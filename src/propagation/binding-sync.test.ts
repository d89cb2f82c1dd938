/**
 * Binding sync when its informers lag:
 * - the release of a deleted binding: a Work the controller just created, not yet in the Work
 *   store, is deleted with the binding's other Works (found by the fleet model: such a Work
 *   outlived its binding and kept a NetworkContext copy on a cell);
 * - a binding's first Works while the template store has not yet shown the detector's claim
 *   write: they carry the template version the binding records, read live, so the copy is not
 *   written once without its claim keys and again with them (found through scenario P49, which
 *   saw the second write after it had read the copy).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import { RB_FINALIZER, RB_PERMANENT_ID_LABEL } from '../apis/work/v1alpha2/resource-binding.ts';
import { CPP_PERMANENT_ID_LABEL } from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../client/types.ts';
import { pino } from 'pino';
import { reconcile } from './binding-sync.ts';
import type { Binding, HubView } from './hub-view.ts';
import type { BindingKey } from './keys.ts';

const TEMPLATE: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'ns', uid: 'template-uid', resourceVersion: '7' },
};

function bindingOf(deleting: boolean): Binding {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: 'web-configmap',
      namespace: 'ns',
      uid: 'binding-uid',
      labels: { [RB_PERMANENT_ID_LABEL]: 'binding-id' },
      finalizers: [RB_FINALIZER],
      ...(deleting && { deletionTimestamp: '2026-12-03T00:00:00Z' }),
    },
    spec: {
      resource: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'ns',
        name: 'web',
        uid: 'template-uid',
        resourceVersion: '7',
      },
      clusters: [{ name: 'cell-a' }],
    },
  };
}

/** A hub view whose Work store never shows what the controller creates (an informer lagging). */
function laggingView(binding: { current: Binding }) {
  const deletedWorks: string[] = [];
  const bindingUpdates: Binding[] = [];
  let created = 0;
  const view = {
    bindings: () => ({ get: () => binding.current }),
    bindingClient: () => ({
      update: async (b: Binding) => (bindingUpdates.push(b), b),
      delete: async () => undefined,
    }),
    works: { store: { byIndex: () => [], get: () => undefined } },
    templates: { get: () => ({ informer: { store: { get: () => TEMPLATE } } }) },
    worksClient: {
      create: async (work: Work) => ({
        ...work,
        metadata: { ...work.metadata, uid: `work-uid-${++created}` },
      }),
      update: async (work: Work) => work,
      delete: async (name: string, namespace: string) => {
        deletedWorks.push(`${namespace}/${name}`);
      },
    },
  } as unknown as HubView;
  return { view, deletedWorks, bindingUpdates };
}

describe('binding sync', () => {
  it('deletes a Work it created but its store has not shown yet when the binding is deleted, before letting the binding go', async () => {
    const binding = { current: bindingOf(false) };
    const { view, deletedWorks, bindingUpdates } = laggingView(binding);
    const key: BindingKey = { kind: 'ResourceBinding', namespace: 'ns', name: 'web-configmap' };
    const log = pino({ level: 'silent' });
    await reconcile(key, view, log);
    assert.deepEqual(deletedWorks, [], 'nothing deleted while the binding lives');
    binding.current = bindingOf(true);
    await reconcile(key, view, log);
    assert.equal(deletedWorks.length, 1, 'the Work created a moment before is deleted');
    assert.match(deletedWorks[0], /^karmada-es-cell-a\//);
    assert.deepEqual(
      bindingUpdates.map((b) => b.metadata.finalizers),
      [[]],
      'then the binding finalizer is removed',
    );
  });
});

/** The template as the detector's claim write left it: version 7, with the CPP claim label. */
const CLAIMED: KubeObject = {
  ...TEMPLATE,
  metadata: { ...TEMPLATE.metadata, resourceVersion: '7', labels: { [CPP_PERMANENT_ID_LABEL]: 'cpp-id' } },
};
/** The same template as a lagging store still holds it: version 6, unclaimed. */
const UNCLAIMED: KubeObject = { ...TEMPLATE, metadata: { ...TEMPLATE.metadata, resourceVersion: '6' } };

/** A hub view whose template store holds `stored`, while the API server answers `live`. */
function templateLagView(stored: KubeObject, live: KubeObject, works: Work[] = []) {
  const created: Work[] = [];
  const updated: Work[] = [];
  const gets: string[] = [];
  const view = {
    bindings: () => ({ get: () => bindingOf(false) }),
    bindingClient: () => ({}),
    works: {
      store: {
        byIndex: () => works,
        get: (_: string, name: string) => works.find((w) => w.metadata.name === name),
      },
    },
    templates: { get: () => ({ informer: { store: { get: () => stored } } }) },
    templateClient: () => ({
      get: async (name: string, namespace?: string) => (gets.push(`${namespace}/${name}`), live),
    }),
    worksClient: {
      create: async (work: Work) => (
        created.push(work),
        { ...work, metadata: { ...work.metadata, uid: 'w' } }
      ),
      update: async (work: Work) => (updated.push(work), work),
    },
  } as unknown as HubView;
  return { view, created, updated, gets };
}

const manifestLabels = (work: Work) =>
  (work.spec?.workload?.manifests?.[0] as KubeObject | undefined)?.metadata.labels ?? {};

describe('binding sync: a binding ahead of the template store', () => {
  const key: BindingKey = { kind: 'ResourceBinding', namespace: 'ns', name: 'web-configmap' };
  const log = pino({ level: 'silent' });

  it("builds a binding's first Work from the template it records, read live, when the store still holds an older one", async () => {
    const { view, created, gets } = templateLagView(UNCLAIMED, CLAIMED);
    await reconcile(key, view, log);
    assert.deepEqual(gets, ['ns/web'], 'the template is read live once');
    assert.equal(created.length, 1);
    assert.equal(manifestLabels(created[0])[CPP_PERMANENT_ID_LABEL], 'cpp-id', 'the copy carries its claim');
  });

  it("keeps the store's template when the live one is not the recorded version either (the binding lags)", async () => {
    const moved = { ...CLAIMED, metadata: { ...CLAIMED.metadata, resourceVersion: '8' } };
    const { view, created } = templateLagView(UNCLAIMED, moved);
    await reconcile(key, view, log);
    assert.equal(created.length, 1);
    assert.equal(manifestLabels(created[0])[CPP_PERMANENT_ID_LABEL], undefined);
  });

  it('creates nothing when the live template is gone or another object', async () => {
    for (const live of [undefined, { ...CLAIMED, metadata: { ...CLAIMED.metadata, uid: 'other-uid' } }]) {
      const { view, created } = templateLagView(UNCLAIMED, live as KubeObject);
      await reconcile(key, view, log);
      assert.deepEqual(created, []);
    }
  });

  it('reads nothing live when the store holds the recorded version, or a Work already holds a manifest', async () => {
    const current = templateLagView(CLAIMED, CLAIMED);
    await reconcile(key, current.view, log);
    assert.deepEqual(current.gets, []);
    assert.equal(current.created.length, 1);
    const held = templateLagView(UNCLAIMED, CLAIMED, [current.created[0]]);
    await reconcile(key, held.view, log);
    assert.deepEqual(held.gets, []);
    assert.deepEqual(held.updated, [], 'an existing Work is not rewritten from a store that lags');
  });
});
