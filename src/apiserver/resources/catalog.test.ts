import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widgetCrd } from '../../../test/support/widget-crd.ts';
import { Plane } from '../plane.ts';
import { createObject, readObject, updateObject } from '../writes.ts';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

function crd(plural: string, kind: string, columns: { name: string; jsonPath: string }[] = []) {
  return widgetCrd(
    { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    { additionalPrinterColumns: columns.map((c) => ({ ...c, type: 'string' })) },
    { plural, kind },
  );
}

describe('catalog', () => {
  it('serves each CRD as it is written, making again only the types of the CRD that changed', () => {
    const plane = new Plane('p', '');
    const crds = plane.catalog.lookup(CRDS.group, CRDS.version, CRDS.plural)!;
    const widgets = () => plane.catalog.lookup('example.com', 'v1', 'widgets');
    const gadgets = () => plane.catalog.lookup('example.com', 'v1', 'gadgets');

    createObject(plane, crds, crd('widgets', 'Widget'));
    const widgetType = widgets();
    assert.equal(widgetType?.kind, 'Widget');
    const revision = plane.catalog.revision;

    createObject(plane, crds, crd('gadgets', 'Gadget'));
    assert.equal(gadgets()?.kind, 'Gadget');
    assert.ok(plane.catalog.revision > revision);
    assert.equal(widgets(), widgetType, 'an unchanged CRD keeps its types');

    const stored = readObject(plane, crds, undefined, 'widgets.example.com')!;
    updateObject(
      plane,
      crds,
      {
        ...crd('widgets', 'Widget', [{ name: 'Color', jsonPath: '.spec.color' }]),
        metadata: stored.metadata,
      },
      stored,
    );
    assert.notEqual(widgets(), widgetType, 'a changed CRD has new types');
    assert.deepEqual(
      widgets()!.columns.map((c) => c.definition.name),
      ['Name', 'Color'],
    );
    assert.equal(gadgets()?.kind, 'Gadget');
    plane.close();
  });
});
