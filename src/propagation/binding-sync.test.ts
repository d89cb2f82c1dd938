/**
 * Binding sync's release of a deleted binding when its informer lags: a Work the controller just
 * created, not yet in the Work store, is deleted with the binding's other Works (found by the
 * fleet model: such a Work outlived its binding and kept a NetworkContext copy on a cell).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import { RB_FINALIZER, RB_PERMANENT_ID_LABEL } from '../apis/work/v1alpha2/resource-binding.ts';
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
