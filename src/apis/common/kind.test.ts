import { Type } from '@sinclair/typebox';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ageColumn, conditionReasonColumn, conditionStatusColumn, defineKind, fieldColumn } from './kind.ts';

describe('kind definitions', () => {
  it('derive apiVersion and the lower-cased singular, with no short names or categories by default', () => {
    const kind = defineKind({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      scope: 'Namespaced',
      statusSubresource: true,
      printerColumns: [],
      schema: Type.Object({}),
    });
    assert.equal(kind.apiVersion, 'example.com/v1');
    assert.equal(kind.singular, 'widget');
    assert.deepEqual([kind.shortNames, kind.categories], [[], []]);
  });

  it('point condition columns at the status and reason of that condition', () => {
    assert.deepEqual(conditionStatusColumn('Ready'), {
      name: 'Ready',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    });
    assert.deepEqual(
      conditionStatusColumn('APPLIED', 'Applied').jsonPath,
      '.status.conditions[?(@.type=="Applied")].status',
    );
    assert.deepEqual(
      conditionReasonColumn('Reason', 'Ready').jsonPath,
      '.status.conditions[?(@.type=="Ready")].reason',
    );
  });

  it('print Age from the creation timestamp, and wide-only columns at priority 1', () => {
    assert.deepEqual(ageColumn(), { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' });
    assert.deepEqual(fieldColumn('MTU', '.spec.mtu', 'integer', 1), {
      name: 'MTU',
      type: 'integer',
      jsonPath: '.spec.mtu',
      priority: 1,
    });
  });
});
