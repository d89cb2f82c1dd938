import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widgetCrd } from '../../../test/support/widget-crd.ts';
import { ApiError } from '../errors.ts';
import { Plane } from '../plane.ts';
import { createObject } from '../writes.ts';
import type { SchemaNode } from './schema-node.ts';
import { prepareSoon } from './schema-preparation.ts';
import { isValidationCompiled, validateAgainstSchema } from './validate.ts';
import { areRulesCompiled } from './validation-rules.ts';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

const size: SchemaNode = {
  type: 'integer',
  minimum: 0,
  'x-kubernetes-validations': [{ rule: 'self < 10', message: 'a widget is smaller than 10' }],
};

const widgetsCrd = () =>
  widgetCrd({ type: 'object', properties: { spec: { type: 'object', properties: { size } } } });

/** Lets the event loop turn until `done()`, at most `turns` times; says whether it came. */
async function turnsUntil(done: () => boolean, turns = 100): Promise<boolean> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  return done();
}

describe('schema preparation', () => {
  it('compiles a served kind’s validators and rules in a turn of their own, before any write of the kind', async () => {
    const plane = new Plane('p', '');
    createObject(plane, plane.catalog.lookup(CRDS.group, CRDS.version, CRDS.plural)!, widgetsCrd());
    const widgets = plane.catalog.lookup('example.com', 'v1', 'widgets')!;
    const schema = widgets.schema as SchemaNode;
    const spec = schema.properties!.spec;
    assert.equal(isValidationCompiled(schema), false, 'the CRD write itself compiles nothing');

    const prepared = () =>
      isValidationCompiled(schema) && isValidationCompiled(spec) && areRulesCompiled(spec.properties!.size);
    assert.ok(await turnsUntil(prepared), 'the whole schema, its spec alone and the rule at spec.size');

    // A write is answered as before.
    const widget = (n: number) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: `w${n}`, namespace: 'default' },
      spec: { size: n },
    });
    assert.deepEqual(createObject(plane, widgets, widget(3)).spec, { size: 3 });
    assert.throws(
      () => createObject(plane, widgets, widget(12)),
      (err: unknown) =>
        err instanceof ApiError && err.code === 422 && /a widget is smaller than 10/.test(err.message),
    );
    plane.close();
  });

  it('leaves a schema that does not compile to its writes, which still report why', async () => {
    const broken: SchemaNode = { type: 'object', properties: { name: { type: 'string', pattern: '(' } } };
    prepareSoon(broken);
    prepareSoon(broken);
    assert.equal(await turnsUntil(() => isValidationCompiled(broken), 20), false);
    assert.throws(() => validateAgainstSchema({ name: 'x' }, broken), /Invalid regular expression/);
  });
});
