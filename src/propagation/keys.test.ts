import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bindingKeyFromString,
  bindingKeyOfTemplate,
  bindingKeyString,
  templateKeyFromString,
  templateKeyString,
} from './keys.ts';

describe('engine keys', () => {
  it('round-trip through their strings, whatever the names hold', () => {
    const template = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a"|b', name: 'c,d' };
    assert.deepEqual(templateKeyFromString(templateKeyString(template)), template);
    const binding = { kind: 'ClusterResourceBinding' as const, namespace: '', name: 'x' };
    assert.deepEqual(bindingKeyFromString(bindingKeyString(binding)), binding);
  });

  it("name a template's binding as §4.1 does: an RB in its namespace, or a CRB", () => {
    assert.deepEqual(
      bindingKeyOfTemplate({
        apiVersion: 'x/v1',
        kind: 'NetworkContext',
        namespace: 'ns-a',
        name: 'default-dfw',
      }),
      {
        kind: 'ResourceBinding',
        namespace: 'ns-a',
        name: 'default-dfw-networkcontext',
      },
    );
    assert.deepEqual(
      bindingKeyOfTemplate({
        apiVersion: 'rbac/v1',
        kind: 'ClusterRole',
        namespace: '',
        name: 'system:controller:foo',
      }),
      {
        kind: 'ClusterResourceBinding',
        namespace: '',
        name: 'system.controller.foo-clusterrole',
      },
    );
  });
});
