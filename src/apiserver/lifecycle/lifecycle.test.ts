import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../objects.ts';
import { Plane } from '../plane.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import type { StoredEvent } from '../storage/revision-log.ts';
import {
  createObject,
  deleteObject,
  getObject,
  readObject,
  removeFinalizer,
  updateObject,
} from '../writes.ts';

/** Lets the lifecycle controllers' microtasks run to quiescence. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup() {
  const plane = new Plane('test', '/planes/test');
  const type = (group: string, version: string, plural: string): ResourceType =>
    plane.catalog.lookup(group, version, plural)!;
  createObject(plane, type('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  const widgets = type('example.com', 'v1', 'widgets');
  const configMaps = type('', 'v1', 'configmaps');
  const leases = type('coordination.k8s.io', 'v1', 'leases');
  const namespaces = type('', 'v1', 'namespaces');
  const create = (t: ResourceType, name: string, extra: Partial<KubeObject> = {}, namespace = 'default') =>
    createObject(plane, t, {
      ...extra,
      metadata: { name, namespace: t.namespaced ? namespace : undefined, ...extra.metadata },
    });
  const ownedBy = (owner: KubeObject, blockOwnerDeletion?: boolean) => ({
    ownerReferences: [
      {
        apiVersion: owner.apiVersion!,
        kind: owner.kind!,
        name: owner.metadata.name!,
        uid: owner.metadata.uid!,
        blockOwnerDeletion,
      },
    ],
  });
  return { plane, widgets, configMaps, leases, namespaces, create, ownedBy };
}

describe('object lifecycle', () => {
  it('marks an object with finalizers for deletion and deletes it when the last finalizer goes', async () => {
    const { plane, widgets, create } = setup();
    const w = create(widgets, 'w1', { metadata: { finalizers: ['example.com/hold'] } });
    const events: StoredEvent[] = [];
    plane.log.watch(widgets.storage, plane.log.revision, (e) => events.push(e));
    const marked = deleteObject(plane, widgets, w);
    assert.equal(marked.pending, true);
    assert.ok(marked.object.metadata.deletionTimestamp);
    assert.equal(marked.object.metadata.generation, 2);
    assert.throws(
      () =>
        updateObject(
          plane,
          widgets,
          {
            ...marked.object,
            metadata: { ...marked.object.metadata, finalizers: ['example.com/hold', 'other'] },
          },
          marked.object,
        ),
      /no new finalizers can be added if the object is being deleted/,
    );
    removeFinalizer(plane, widgets, getObject(plane, widgets, 'default', 'w1'), 'example.com/hold');
    assert.equal(readObject(plane, widgets, 'default', 'w1'), undefined);
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    );
  });

  it('refuses deletion whose uid or resourceVersion precondition does not hold', () => {
    const { plane, configMaps, create } = setup();
    const cm = create(configMaps, 'c');
    assert.throws(
      () => deleteObject(plane, configMaps, cm, { preconditions: { uid: 'other' } }),
      /Precondition failed: UID in precondition: other/,
    );
    assert.throws(
      () => deleteObject(plane, configMaps, cm, { preconditions: { resourceVersion: '1' } }),
      (e: any) => e.code === 409,
    );
    assert.ok(readObject(plane, configMaps, 'default', 'c'));
  });

  it('collects dependents of any kind once their owner is gone, by uid', async () => {
    const { plane, widgets, configMaps, leases, create, ownedBy } = setup();
    const owner = create(configMaps, 'owner');
    create(widgets, 'dep', { metadata: ownedBy(owner) });
    create(leases, 'lease', { metadata: ownedBy(owner) });
    deleteObject(plane, configMaps, owner);
    create(configMaps, 'owner'); // same name, new uid: not the owner
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'dep'), undefined);
    assert.equal(readObject(plane, leases, 'default', 'lease'), undefined);
  });

  it('collects an object whose owner uid never existed, and keeps one with a live owner', async () => {
    const { plane, widgets, configMaps, create, ownedBy } = setup();
    const owner = create(configMaps, 'owner');
    create(widgets, 'kept', { metadata: ownedBy(owner) });
    create(widgets, 'orphaned', {
      metadata: {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'never-existed' }],
      },
    });
    await settle();
    assert.ok(readObject(plane, widgets, 'default', 'kept'));
    assert.equal(readObject(plane, widgets, 'default', 'orphaned'), undefined);
  });

  it('collects a dependent whose owner references change to an absent owner, not one whose content changes', async () => {
    const { plane, widgets, configMaps, create, ownedBy } = setup();
    const owner = create(configMaps, 'owner');
    create(widgets, 'dep', { metadata: ownedBy(owner) });
    await settle();
    const dep = getObject(plane, widgets, 'default', 'dep');
    updateObject(plane, widgets, { ...dep, spec: { size: 2 } }, dep);
    await settle();
    const changed = getObject(plane, widgets, 'default', 'dep');
    assert.deepEqual(changed.spec, { size: 2 });
    updateObject(
      plane,
      widgets,
      {
        ...changed,
        metadata: {
          ...changed.metadata,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'never-existed' }],
        },
      },
      changed,
    );
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'dep'), undefined);
  });

  it('still knows a dependent after writes that keep its owners, and after one that moves it to another', async () => {
    const { plane, widgets, configMaps, create, ownedBy } = setup();
    const first = create(configMaps, 'first');
    const second = create(configMaps, 'second');
    create(widgets, 'stays', { metadata: ownedBy(first) });
    create(widgets, 'moves', { metadata: ownedBy(first) });
    for (const size of [1, 2, 3]) {
      const stays = getObject(plane, widgets, 'default', 'stays');
      updateObject(plane, widgets, { ...stays, spec: { size } }, stays);
    }
    const moves = getObject(plane, widgets, 'default', 'moves');
    updateObject(plane, widgets, { ...moves, metadata: { ...moves.metadata, ...ownedBy(second) } }, moves);
    await settle();
    deleteObject(plane, configMaps, first);
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'stays'), undefined, 'collected with its owner');
    assert.ok(readObject(plane, widgets, 'default', 'moves'), 'its owner is the second, which lives');
    deleteObject(plane, configMaps, second);
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'moves'), undefined);
  });

  it('treats an owner in another namespace as absent', async () => {
    const { plane, widgets, configMaps, namespaces, create, ownedBy } = setup();
    create(namespaces, 'other');
    const owner = create(configMaps, 'owner', {}, 'other');
    create(widgets, 'dep', { metadata: ownedBy(owner) });
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'dep'), undefined);
  });

  it('deletes in foreground: the owner waits for blocking dependents, then goes', async () => {
    const { plane, widgets, configMaps, create, ownedBy } = setup();
    const owner = create(configMaps, 'owner');
    create(widgets, 'blocker', { metadata: { ...ownedBy(owner, true), finalizers: ['example.com/hold'] } });
    create(widgets, 'plain', { metadata: ownedBy(owner) });
    const result = deleteObject(plane, configMaps, owner, { propagationPolicy: 'Foreground' });
    assert.deepEqual(result.object.metadata.finalizers, ['foregroundDeletion']);
    await settle();
    assert.equal(readObject(plane, widgets, 'default', 'plain'), undefined);
    assert.ok(readObject(plane, widgets, 'default', 'blocker')?.metadata.deletionTimestamp);
    assert.ok(
      readObject(plane, configMaps, 'default', 'owner'),
      'the owner waits for its blocking dependent',
    );
    removeFinalizer(plane, widgets, getObject(plane, widgets, 'default', 'blocker'), 'example.com/hold');
    await settle();
    assert.equal(readObject(plane, configMaps, 'default', 'owner'), undefined);
  });

  it('orphans dependents: they stay, without the owner reference', async () => {
    const { plane, widgets, configMaps, create, ownedBy } = setup();
    const owner = create(configMaps, 'owner');
    create(widgets, 'dep', { metadata: ownedBy(owner) });
    deleteObject(plane, configMaps, owner, { propagationPolicy: 'Orphan' });
    await settle();
    assert.equal(readObject(plane, configMaps, 'default', 'owner'), undefined);
    const dep = readObject(plane, widgets, 'default', 'dep');
    assert.ok(dep);
    assert.equal('ownerReferences' in dep.metadata, false);
  });

  it('terminates a namespace: refuses new content, waits for finalizers, then goes', async () => {
    const { plane, widgets, configMaps, namespaces, create } = setup();
    const ns = create(namespaces, 'doomed');
    create(configMaps, 'a', {}, 'doomed');
    create(widgets, 'held', { metadata: { finalizers: ['example.com/hold'] } }, 'doomed');
    const terminating = plane.terminateNamespace(ns);
    assert.equal((terminating.status as any).phase, 'Terminating');
    assert.throws(
      () => create(configMaps, 'late', {}, 'doomed'),
      (e: any) =>
        e.code === 403 &&
        /because it is being terminated/.test(e.message) &&
        e.details.causes[0].reason === 'NamespaceTerminating',
    );
    await settle();
    assert.equal(readObject(plane, configMaps, 'doomed', 'a'), undefined);
    const waiting = readObject(plane, namespaces, undefined, 'doomed')!;
    assert.ok((waiting.status as any).conditions.some((c: any) => c.type === 'NamespaceContentRemaining'));
    removeFinalizer(plane, widgets, getObject(plane, widgets, 'doomed', 'held'), 'example.com/hold');
    await settle();
    assert.equal(readObject(plane, namespaces, undefined, 'doomed'), undefined);
  });

  it('deletes a CRD by deleting its objects first, then stops serving the kind', async () => {
    const { plane, widgets, create } = setup();
    create(widgets, 'w');
    const crdType = plane.catalog.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const crd = getObject(plane, crdType, undefined, 'widgets.example.com');
    assert.deepEqual(crd.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    deleteObject(plane, crdType, crd);
    await settle();
    assert.equal(plane.log.count(widgets.storage), 0);
    assert.equal(readObject(plane, crdType, undefined, 'widgets.example.com'), undefined);
    assert.equal(plane.catalog.lookup('example.com', 'v1', 'widgets'), undefined);
  });
});
