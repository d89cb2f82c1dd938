/**
 * Binding sync when its informers lag:
 * - the release of a deleted binding: a Work the controller just created, not yet in the Work
 *   store, is deleted with the binding's other Works (found by the fleet model: such a Work
 *   outlived its binding and kept a NetworkContext copy on a cell);
 * - a binding's first Works while the template store has not yet shown the detector's claim
 *   write: none is built from the unclaimed template; the store reaching the version the binding
 *   records wakes the binding, so the copy is not written once without its claim keys and again
 *   with them (found through scenario P49, which saw the second write after it had read the copy).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import { RB_FINALIZER, RB_PERMANENT_ID_LABEL } from '../apis/work/v1alpha2/resource-binding.ts';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
} from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../client/types.ts';
import { pino } from 'pino';
import { reconcile, templateCaughtUp } from './binding-sync.ts';
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

/** The claim of CPP `location-dfw`, as the detector writes it on the template and the binding. */
const CLAIM_LABELS = { [CPP_PERMANENT_ID_LABEL]: 'cpp-id' };
const CLAIM_ANNOTATIONS = { [CPP_NAME_ANNOTATION]: 'location-dfw' };
/** The template as the detector's claim write left it: version 7, claimed. */
const CLAIMED: KubeObject = {
  ...TEMPLATE,
  metadata: {
    ...TEMPLATE.metadata,
    resourceVersion: '7',
    labels: CLAIM_LABELS,
    annotations: CLAIM_ANNOTATIONS,
  },
};
/** The same template as a lagging store still holds it: version 6, unclaimed. */
const UNCLAIMED: KubeObject = { ...TEMPLATE, metadata: { ...TEMPLATE.metadata, resourceVersion: '6' } };

/** The binding the detector created from its claim write: claimed, recording version 7. */
function claimedBinding(): Binding {
  const binding = bindingOf(false);
  return {
    ...binding,
    metadata: {
      ...binding.metadata,
      labels: { ...binding.metadata.labels, ...CLAIM_LABELS },
      annotations: CLAIM_ANNOTATIONS,
    },
  };
}

/** A hub view whose template store holds `template.current`, and whose Works are `works`. */
function templateStoreView(template: { current: KubeObject }, works: Work[] = []) {
  const created: Work[] = [];
  const updated: Work[] = [];
  const view = {
    bindings: () => ({ get: () => claimedBinding() }),
    bindingClient: () => ({}),
    works: {
      store: {
        byIndex: () => works,
        get: (_: string, name: string) => works.find((w) => w.metadata.name === name),
      },
    },
    templates: { get: () => ({ informer: { store: { get: () => template.current } } }) },
    worksClient: {
      create: async (work: Work) => (
        created.push(work),
        { ...work, metadata: { ...work.metadata, uid: 'w' } }
      ),
      update: async (work: Work) => (updated.push(work), work),
    },
  } as unknown as HubView;
  return { view, created, updated };
}

const manifestLabels = (work: Work) =>
  (work.spec?.workload?.manifests?.[0] as KubeObject | undefined)?.metadata.labels ?? {};

describe('binding sync: a binding ahead of its template store', () => {
  const key: BindingKey = { kind: 'ResourceBinding', namespace: 'ns', name: 'web-configmap' };
  const log = pino({ level: 'silent' });

  it('creates no Work from a stored template without the claim the binding was made from; the store catching up wakes it, and the Work carries the claim', async () => {
    const template = { current: UNCLAIMED };
    const { view, created } = templateStoreView(template);
    await reconcile(key, view, log);
    assert.deepEqual(created, [], 'no Work from the unclaimed template');
    assert.deepEqual(
      templateCaughtUp({ type: 'MODIFIED', object: UNCLAIMED }, view),
      [],
      'an older version wakes nothing',
    );
    template.current = CLAIMED;
    assert.deepEqual(
      templateCaughtUp({ type: 'MODIFIED', object: CLAIMED }, view),
      [key],
      'the recorded version wakes it',
    );
    await reconcile(key, view, log);
    assert.equal(created.length, 1);
    assert.equal(manifestLabels(created[0])[CPP_PERMANENT_ID_LABEL], 'cpp-id', 'the copy carries its claim');
  });

  it('builds from the stored template when it carries the claim at another version (the binding lags, or its claim was lost)', async () => {
    const moved = { ...CLAIMED, metadata: { ...CLAIMED.metadata, resourceVersion: '8' } };
    const { view, created } = templateStoreView({ current: moved });
    await reconcile(key, view, log);
    assert.equal(created.length, 1);
    assert.equal(manifestLabels(created[0])[CPP_PERMANENT_ID_LABEL], 'cpp-id');
  });

  it('leaves Works that already hold a manifest alone while the store lags', async () => {
    const first = templateStoreView({ current: CLAIMED });
    await reconcile(key, first.view, log);
    const lagging = templateStoreView({ current: UNCLAIMED }, [first.created[0]]);
    await reconcile(key, lagging.view, log);
    assert.deepEqual(lagging.created, []);
    assert.deepEqual(lagging.updated, [], 'an existing Work is not rewritten from a store that lags');
  });

  it("a template's deletion wakes its binding", () => {
    const { view } = templateStoreView({ current: CLAIMED });
    assert.deepEqual(templateCaughtUp({ type: 'DELETED', object: UNCLAIMED }, view), [key]);
  });
});
