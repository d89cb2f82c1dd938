import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Plane } from './plane.ts';
import { projectPlaneName } from './plane-names.ts';
import { PROJECT_PLANES, WriteCounter, SERVER_USER } from './write-counter.ts';
import { createObject, deleteObject, updateObject } from './writes.ts';

async function counted(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('netpresence_apiserver_writes_total');
  const out: Record<string, number> = {};
  for (const { labels, value } of (await metric!.get()).values)
    out[[labels.user, labels.user_agent, labels.resource, labels.subresource, labels.verb].join(' ')] = value;
  return out;
}

describe('write counter', () => {
  it('counts each write that advances the revision by user, agent, resource, subresource and verb, and no no-op or dry run', async () => {
    const registry = new Registry();
    const plane = new Plane('test', '/planes/test', { writeCounter: new WriteCounter(registry) });
    const configMaps = plane.catalog.lookup('', 'v1', 'configmaps')!;
    const by = { user: 'alice', userAgent: 'netpresence/presence' };
    const before = plane.log.revision;
    const created = createObject(
      plane,
      configMaps,
      { metadata: { name: 'a', namespace: 'default' }, data: { k: '1' } },
      by,
    );
    createObject(
      plane,
      configMaps,
      { metadata: { name: 'b', namespace: 'default' } },
      { ...by, dryRun: true },
    );
    const updated = updateObject(plane, configMaps, { ...created, data: { k: '2' } }, created, by);
    // Nothing changes: no new revision, not counted.
    updateObject(plane, configMaps, { ...updated }, updated, by);
    deleteObject(plane, configMaps, updated, {});
    assert.equal(plane.log.revision - before, 3);
    assert.deepEqual(await counted(registry), {
      'alice netpresence/presence /configmaps  create': 1,
      'alice netpresence/presence /configmaps  update': 1,
      [`${SERVER_USER}  /configmaps  delete`]: 1,
    });
  });

  it('labels writes by plane name, and every project plane as one', async () => {
    const registry = new Registry();
    const counter = new WriteCounter(registry);
    const planes = ['hub', projectPlaneName('alpha'), projectPlaneName('beta'), 'cell-loc-0'].map(
      (name) => new Plane(name, `/planes/${name}`, { writeCounter: counter }),
    );
    for (const plane of planes) {
      const configMaps = plane.catalog.lookup('', 'v1', 'configmaps')!;
      createObject(plane, configMaps, { metadata: { name: 'a', namespace: 'default' } }, { user: 'alice' });
    }
    const metric = registry.getSingleMetric('netpresence_apiserver_writes_total')!;
    const byPlane = Object.fromEntries(
      (await metric.get()).values.map(({ labels, value }) => [labels.plane, value]),
    );
    assert.deepEqual(byPlane, { hub: 1, [PROJECT_PLANES]: 2, 'cell-loc-0': 1 });
  });
});
