import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { Store } from './store.ts';

function binding(name: string, rv: number, network?: string, namespace = 'ns-1'): KubeObject {
  return { metadata: { name, namespace, resourceVersion: String(rv) }, spec: { network } };
}

const byNetwork = (o: KubeObject): string[] => {
  const network = (o.spec as { network?: string }).network;
  return network ? [network] : [];
};

const names = (objects: KubeObject[]): string[] => objects.map((o) => o.metadata.name!);

describe('Store', () => {
  it('answers get and list by namespace and name, ordered by key', () => {
    const store = new Store();
    store.apply({ type: 'ADDED', object: binding('b', 2, undefined, 'ns-2') });
    store.apply({ type: 'ADDED', object: binding('a', 1) });
    store.apply({ type: 'ADDED', object: { metadata: { name: 'cluster-wide', resourceVersion: '3' } } });
    assert.equal(store.get('ns-1', 'a')?.metadata.resourceVersion, '1');
    assert.equal(store.get(undefined, 'cluster-wide')?.metadata.name, 'cluster-wide');
    assert.equal(store.get('ns-2', 'a'), undefined);
    assert.deepEqual(names(store.list()), ['cluster-wide', 'a', 'b']);
    assert.deepEqual(names(store.list('ns-2')), ['b']);
  });

  it("lists a namespace's objects as they come and go, and never another namespace's", () => {
    const store = new Store();
    store.apply({ type: 'ADDED', object: binding('b', 1, undefined, 'ns') });
    store.apply({ type: 'ADDED', object: binding('a', 2, undefined, 'ns') });
    store.apply({ type: 'ADDED', object: binding('c', 3, undefined, 'ns-1') });
    store.apply({ type: 'MODIFIED', object: binding('a', 4, undefined, 'ns') });
    assert.deepEqual(names(store.list('ns')), ['a', 'b']);
    store.apply({ type: 'DELETED', object: binding('b', 5, undefined, 'ns') });
    assert.deepEqual(names(store.list('ns')), ['a']);
    store.replace([binding('c', 3, undefined, 'ns-1'), binding('d', 6, undefined, 'ns-1')]);
    assert.deepEqual(store.list('ns'), []);
    assert.deepEqual(names(store.list('ns-1')), ['c', 'd']);
    assert.deepEqual(store.list(''), []);
  });

  it('moves an object between index values when it is modified', () => {
    const store = new Store();
    store.addIndex('network', byNetwork);
    store.apply({ type: 'ADDED', object: binding('a', 1, 'blue') });
    store.apply({ type: 'ADDED', object: binding('b', 2, 'blue') });
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a', 'b']);

    store.apply({ type: 'MODIFIED', object: binding('a', 3, 'red') });
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['b']);
    assert.deepEqual(names(store.byIndex('network', 'red')), ['a']);

    store.apply({ type: 'MODIFIED', object: binding('b', 4) });
    assert.deepEqual(store.byIndex('network', 'blue'), []);
  });

  it('files one, two, then one object again under a value, and keeps an unchanged filing through updates', () => {
    const store = new Store();
    store.addIndex('network', byNetwork);
    store.addIndex('labels', (o) => Object.values(o.metadata.labels ?? {}));
    const labelled = (name: string, rv: number, labels: Record<string, string>): KubeObject => ({
      ...binding(name, rv, 'blue'),
      metadata: { name, namespace: 'ns-1', resourceVersion: String(rv), labels },
    });
    store.apply({ type: 'ADDED', object: labelled('a', 1, { x: 'v', y: 'w' }) });
    store.apply({ type: 'MODIFIED', object: labelled('a', 2, { x: 'v', y: 'w' }) });
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a']);
    store.apply({ type: 'ADDED', object: labelled('b', 3, { x: 'w' }) });
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a', 'b']);
    assert.deepEqual(names(store.byIndex('labels', 'w')), ['a', 'b']);
    store.apply({ type: 'MODIFIED', object: labelled('a', 4, { x: 'v' }) });
    assert.deepEqual(names(store.byIndex('labels', 'w')), ['b']);
    assert.deepEqual(names(store.byIndex('labels', 'v')), ['a']);
    store.apply({ type: 'DELETED', object: labelled('b', 5, { x: 'w' }) });
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a']);
    assert.deepEqual(store.byIndex('labels', 'w'), []);
    store.apply({ type: 'ADDED', object: labelled('c', 6, { x: 'v' }) });
    store.apply({ type: 'DELETED', object: labelled('a', 7, { x: 'v' }) });
    assert.deepEqual(names(store.byIndex('labels', 'v')), ['c']);
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['c']);
    assert.deepEqual(names(store.list('ns-1')), ['c']);
    store.apply({ type: 'DELETED', object: labelled('c', 8, { x: 'v' }) });
    assert.deepEqual(store.byIndex('labels', 'v'), []);
    assert.deepEqual(store.list('ns-1'), []);
  });

  it('drops a deleted object from every index', () => {
    const store = new Store();
    store.addIndex('network', byNetwork);
    store.addIndex('namespace', (o) => [o.metadata.namespace!]);
    store.apply({ type: 'ADDED', object: binding('a', 1, 'blue') });
    store.apply({ type: 'DELETED', object: binding('a', 2, 'blue') });
    assert.deepEqual(store.byIndex('network', 'blue'), []);
    assert.deepEqual(store.byIndex('namespace', 'ns-1'), []);
    assert.equal(store.size, 0);
  });

  it('files an object under every value its index function returns, once each', () => {
    const store = new Store();
    store.addIndex('labels', (o) => Object.values(o.metadata.labels ?? {}));
    store.apply({ type: 'ADDED', object: { metadata: { name: 'x', labels: { a: 'v', b: 'v', c: 'w' } } } });
    assert.deepEqual(names(store.byIndex('labels', 'v')), ['x']);
    assert.deepEqual(names(store.byIndex('labels', 'w')), ['x']);
  });

  it('builds an index added late over the objects already held', () => {
    const store = new Store();
    store.apply({ type: 'ADDED', object: binding('a', 1, 'blue') });
    store.addIndex('network', byNetwork);
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a']);
  });

  it('accepts the same index function twice and refuses a different one under the same name', () => {
    const store = new Store();
    store.addIndex('network', byNetwork);
    store.addIndex('network', byNetwork);
    assert.throws(() => store.addIndex('network', () => []), /already has a different index named network/);
    assert.throws(() => store.byIndex('location', 'x'), /no index named location/);
  });

  it('reports what each event changed and ignores events that change nothing', () => {
    const store = new Store();
    assert.deepEqual(store.apply({ type: 'ADDED', object: binding('a', 1) }), {
      type: 'ADDED',
      object: binding('a', 1),
    });
    assert.equal(store.apply({ type: 'MODIFIED', object: binding('a', 1) }), undefined);
    assert.deepEqual(store.apply({ type: 'ADDED', object: binding('a', 2) }), {
      type: 'MODIFIED',
      object: binding('a', 2),
      previous: binding('a', 1),
    });
    assert.equal(store.apply({ type: 'DELETED', object: binding('missing', 3) }), undefined);
    assert.deepEqual(store.apply({ type: 'DELETED', object: binding('a', 4) }), {
      type: 'DELETED',
      object: binding('a', 4),
      previous: binding('a', 2),
    });
  });

  it('replace reports additions, modifications and deletions against the held state', () => {
    const store = new Store();
    store.addIndex('network', byNetwork);
    store.replace([binding('a', 3, 'blue'), binding('b', 4, 'blue'), binding('c', 5, 'blue')]);

    const changes = store.replace([binding('b', 4, 'blue'), binding('c', 8, 'red'), binding('d', 9, 'red')]);
    assert.deepEqual(changes, [
      { type: 'MODIFIED', object: binding('c', 8, 'red'), previous: binding('c', 5, 'blue') },
      { type: 'ADDED', object: binding('d', 9, 'red') },
      { type: 'DELETED', object: binding('a', 3, 'blue'), previous: binding('a', 3, 'blue') },
    ]);
    assert.deepEqual(names(store.list()), ['b', 'c', 'd']);
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['b']);
    assert.deepEqual(names(store.byIndex('network', 'red')), ['c', 'd']);
  });

  it('leaves the store unchanged when an index function throws', () => {
    const store = new Store();
    store.addIndex('network', (o) => {
      if (o.metadata.name === 'bad') throw new Error('no network');
      return byNetwork(o);
    });
    store.apply({ type: 'ADDED', object: binding('a', 1, 'blue') });
    assert.throws(() => store.apply({ type: 'ADDED', object: binding('bad', 2, 'blue') }), /no network/);
    assert.equal(store.get('ns-1', 'bad'), undefined);
    assert.deepEqual(names(store.byIndex('network', 'blue')), ['a']);
  });
});
