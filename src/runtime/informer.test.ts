import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { FakeResource } from '../../test/support/fake-resource-client.ts';
import { FakeClock } from './clock.ts';
import { createInformer } from './informer.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const silent = pino({ level: 'silent' });

function configMap(name: string, owner: string): KubeObject {
  return { metadata: { name, namespace: 'default', labels: { owner } } };
}

const byOwner = (o: KubeObject): string[] => [o.metadata.labels?.owner ?? ''];

function setup() {
  const clock = new FakeClock();
  const resource = new FakeResource(CONFIGMAPS);
  const informer = createInformer({
    plane: 'hub',
    client: resource.client(),
    clock,
    log: silent,
    indexes: { owner: byOwner },
  });
  return { clock, resource, informer };
}

describe('createInformer', () => {
  it('tells a subscriber of a change only after the store and its indexes reflect it', async () => {
    const { clock, resource, informer } = setup();
    const seen: string[] = [];
    informer.subscribe((event) => {
      const filed = informer.store.byIndex('owner', 'alice').map((o) => o.metadata.name);
      seen.push(`${event.type} ${event.object.metadata.name} [${filed.join(',')}]`);
    });
    informer.start();
    await informer.synced();
    resource.put(configMap('a', 'alice'));
    resource.put(configMap('a', 'bob'));
    resource.remove('default', 'a');
    await clock.advance(0);
    assert.deepEqual(seen, ['ADDED a [a]', 'MODIFIED a []', 'DELETED a []']);
    await informer.stop();
  });

  it('tells a late subscriber of every object already held, then of later changes', async () => {
    const { clock, resource, informer } = setup();
    resource.put(configMap('b', 'bob'));
    resource.put(configMap('a', 'alice'));
    informer.start();
    await informer.synced();
    const seen: string[] = [];
    informer.subscribe((event) => seen.push(`${event.type} ${event.object.metadata.name}`));
    resource.put(configMap('c', 'carol'));
    await clock.advance(0);
    assert.deepEqual(seen, ['ADDED a', 'ADDED b', 'ADDED c']);
    await informer.stop();
  });

  it('keeps telling the other subscribers when one throws, and nobody after unsubscribe or stop', async () => {
    const { clock, resource, informer } = setup();
    const seen: string[] = [];
    informer.subscribe(() => {
      throw new Error('broken handler');
    });
    const unsubscribe = informer.subscribe((event) => seen.push(`first ${event.object.metadata.name}`));
    informer.subscribe((event) => seen.push(`second ${event.object.metadata.name}`));
    informer.start();
    await clock.advance(0); // listed and watching
    resource.put(configMap('a', 'alice'));
    unsubscribe();
    resource.put(configMap('b', 'bob'));
    await informer.stop();
    resource.put(configMap('c', 'carol'));
    await clock.advance(1000);
    assert.deepEqual(seen, ['first a', 'second a', 'second b']);
    assert.equal(resource.openWatches, 0);
  });

  it('answers an index added after the first list', async () => {
    const { resource, informer } = setup();
    resource.put(configMap('a', 'alice'));
    informer.start();
    await informer.synced();
    informer.addIndex('name-length', (o) => [String(o.metadata.name!.length)]);
    assert.deepEqual(
      informer.store.byIndex('name-length', '1').map((o) => o.metadata.name),
      ['a'],
    );
    assert.equal(informer.plane, 'hub');
    assert.equal(informer.id.plural, 'configmaps');
    await informer.stop();
  });
});
