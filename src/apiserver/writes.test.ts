import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widgetCrd } from '../../test/support/widget-crd.ts';
import { ApiError } from './errors.ts';
import { knownEncoding } from './encoding/presented-json.ts';
import { watchEventLine } from './encoding/watch-event.ts';
import { Plane } from './plane.ts';
import { createObject, updateObject } from './writes.ts';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

const widgets = widgetCrd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });

function planeWith(maxObjectBytes?: number) {
  const plane = new Plane('p', '', { maxObjectBytes });
  return { plane, crds: plane.catalog.lookup(CRDS.group, CRDS.version, CRDS.plural)! };
}

describe('writes', () => {
  it('answer and tell every watcher each write exactly as it is stored, its resourceVersion included', () => {
    const { plane, crds } = planeWith();
    const lines: string[] = [];
    plane.log.watch(crds.storage, plane.log.revision, (event) =>
      lines.push(watchEventLine(crds, event.type, event.object)),
    );
    const created = createObject(plane, crds, structuredClone(widgets));
    const labelled = { ...created, metadata: { ...created.metadata, labels: { tier: 'edge' } } };
    const updated = updateObject(plane, crds, labelled, created);
    assert.equal(updated.metadata.resourceVersion, String(plane.log.revision));
    assert.deepEqual(updated.metadata.labels, { tier: 'edge' });
    for (const [i, [type, written]] of [
      ['ADDED', created] as const,
      ['MODIFIED', updated] as const,
    ].entries()) {
      assert.equal(knownEncoding(written), JSON.stringify(written));
      assert.equal(lines[i], `{"type":"${type}","object":${JSON.stringify(written)}}\n`);
    }
  });

  it('refuse with 413 an object whose stored encoding, resourceVersion included, is over the limit', () => {
    const { plane, crds } = planeWith();
    const size = Buffer.byteLength(JSON.stringify(createObject(plane, crds, structuredClone(widgets))));
    const under = planeWith(size - 1);
    assert.throws(
      () => createObject(under.plane, under.crds, structuredClone(widgets)),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 413 &&
        err.message.includes(`would be ${size} bytes encoded; the limit is ${size - 1} bytes`),
    );
    assert.equal(under.plane.log.get(under.crds.storage, 'widgets.example.com'), undefined);
    const at = planeWith(size);
    assert.equal(
      createObject(at.plane, at.crds, structuredClone(widgets)).metadata.name,
      'widgets.example.com',
    );
  });
});
