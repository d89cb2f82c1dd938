import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, ResourceId } from '../client/types.ts';
import type { Informer, InformerEvent } from './informer-contract.ts';
import { anyOf, forObject, generationChanged, labelsChanged, owns, watches } from './triggers.ts';

const configMaps: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

/** An informer whose events the test emits by hand. */
class FakeInformer implements Informer {
  readonly id = configMaps;
  readonly store = { get: () => undefined, list: () => [], byIndex: () => [] };
  private readonly handlers = new Set<(event: InformerEvent) => void>();

  constructor(readonly plane: string) {}

  subscribe(handler: (event: InformerEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async synced(): Promise<void> {}

  emit(event: InformerEvent): void {
    for (const handler of this.handlers) handler(event);
  }

  subscribers(): number {
    return this.handlers.size;
  }
}

function object(name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { metadata: { name, namespace: 'ns', generation: 1, ...metadata } };
}

function owner(kind: string, name: string, controller = true) {
  return { apiVersion: 'networking.datumapis.com/v1alpha', kind, name, uid: `uid-${name}`, controller };
}

const nameKey = (o: KubeObject, plane: string) => `${plane}/${o.metadata.namespace}/${o.metadata.name}`;

describe('triggers', () => {
  it('forObject wakes the key of the object of every event, named with the informer plane', () => {
    const informer = new FakeInformer('hub');
    const keys: string[] = [];
    forObject(informer, nameKey)((key) => keys.push(key));
    informer.emit({ type: 'ADDED', object: object('a') });
    informer.emit({ type: 'DELETED', object: object('b') });
    assert.deepEqual(keys, ['hub/ns/a', 'hub/ns/b']);
  });

  it('owns wakes the controller owner of the given kind, ignoring other kinds and non-controller owners', () => {
    const informer = new FakeInformer('hub');
    const keys: string[] = [];
    owns(
      informer,
      'Network',
      (ref, o, plane) => `${plane}/${o.metadata.namespace}/${ref.name}`,
    )((key) => keys.push(key));
    informer.emit({ type: 'ADDED', object: object('c1', { ownerReferences: [owner('Network', 'net')] }) });
    informer.emit({ type: 'ADDED', object: object('c2', { ownerReferences: [owner('Other', 'x')] }) });
    informer.emit({
      type: 'ADDED',
      object: object('c3', { ownerReferences: [owner('Network', 'y', false)] }),
    });
    informer.emit({ type: 'ADDED', object: object('c4') });
    assert.deepEqual(keys, ['hub/ns/net']);
  });

  it('owns wakes both the old and the new owner when a modification moves the object', () => {
    const informer = new FakeInformer('hub');
    const keys: string[] = [];
    owns(informer, 'Network', (ref) => ref.name)((key) => keys.push(key));
    informer.emit({
      type: 'MODIFIED',
      object: object('c', { ownerReferences: [owner('Network', 'new')] }),
      previous: object('c', { ownerReferences: [owner('Network', 'old')] }),
    });
    assert.deepEqual(keys, ['new', 'old']);
  });

  it('watches maps an event of a project plane to hub keys', () => {
    const project = new FakeInformer('project-a');
    const keys: { plane: string; namespace: string; name: string }[] = [];
    watches(project, (event, plane) =>
      event.object.metadata.labels?.network === undefined
        ? []
        : [
            { plane: 'hub', namespace: plane, name: `${event.object.metadata.labels.network}-1` },
            { plane: 'hub', namespace: plane, name: `${event.object.metadata.labels.network}-2` },
          ],
    )((key) => keys.push(key));
    project.emit({ type: 'ADDED', object: object('ctx', { labels: { network: 'net' } }) });
    project.emit({ type: 'ADDED', object: object('unrelated') });
    assert.deepEqual(keys, [
      { plane: 'hub', namespace: 'project-a', name: 'net-1' },
      { plane: 'hub', namespace: 'project-a', name: 'net-2' },
    ]);
  });

  it('stops delivering once unsubscribed', () => {
    const informer = new FakeInformer('hub');
    const keys: string[] = [];
    const unsubscribe = forObject(informer, nameKey)((key) => keys.push(key));
    unsubscribe();
    informer.emit({ type: 'ADDED', object: object('a') });
    assert.deepEqual(keys, []);
    assert.equal(informer.subscribers(), 0);
  });

  it('delivers an event only when every predicate passes', () => {
    const informer = new FakeInformer('hub');
    const keys: string[] = [];
    forObject(informer, nameKey, generationChanged, labelsChanged)((key) => keys.push(key));
    const before = object('a', { generation: 1, labels: { x: '1' } });
    informer.emit({
      type: 'MODIFIED',
      previous: before,
      object: object('a', { generation: 2, labels: { x: '1' } }),
    });
    informer.emit({
      type: 'MODIFIED',
      previous: before,
      object: object('a', { generation: 2, labels: { x: '2' } }),
    });
    assert.deepEqual(keys, ['hub/ns/a']);
  });
});

describe('predicates', () => {
  const before = object('a', { generation: 1, labels: { x: '1' } });
  const statusOnly: InformerEvent = {
    type: 'MODIFIED',
    previous: before,
    object: { ...before, status: { ready: true } },
  };
  const specChange: InformerEvent = {
    type: 'MODIFIED',
    previous: before,
    object: object('a', { generation: 2, labels: { x: '1' } }),
  };
  const relabel: InformerEvent = {
    type: 'MODIFIED',
    previous: before,
    object: object('a', { generation: 1, labels: { x: '2' } }),
  };

  it('generationChanged passes a spec change, adds and deletes, not a status-only change', () => {
    assert.equal(generationChanged(specChange), true);
    assert.equal(generationChanged(statusOnly), false);
    assert.equal(generationChanged({ type: 'ADDED', object: before }), true);
    assert.equal(generationChanged({ type: 'DELETED', object: before }), true);
  });

  it('labelsChanged passes a label change, added or removed labels, not other changes', () => {
    assert.equal(labelsChanged(relabel), true);
    assert.equal(labelsChanged(specChange), false);
    assert.equal(
      labelsChanged({ type: 'MODIFIED', previous: before, object: object('a', { labels: {} }) }),
      true,
    );
    assert.equal(
      labelsChanged({ type: 'MODIFIED', previous: object('a'), object: object('a', { labels: {} }) }),
      false,
    );
  });

  it('passes a modification without the previous object, which cannot be compared', () => {
    assert.equal(generationChanged({ type: 'MODIFIED', object: before }), true);
    assert.equal(labelsChanged({ type: 'MODIFIED', object: before }), true);
  });

  it('anyOf passes when one of its predicates does', () => {
    const either = anyOf(generationChanged, labelsChanged);
    assert.equal(either(specChange), true);
    assert.equal(either(relabel), true);
    assert.equal(either(statusOnly), false);
  });
});
