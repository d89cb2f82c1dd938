import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { neverClaimed, templateChanged } from './detector.ts';

const template = (namespace: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name: 't', namespace, labels },
});

describe('the detector', () => {
  it('never claims templates in reserved namespaces, or labelled claimed-by', () => {
    for (const namespace of [
      'karmada-system',
      'karmada-cluster',
      'karmada-es-cell-dfw-1',
      'kube-system',
      'kube-foo',
    ])
      assert.equal(neverClaimed(template(namespace)), true, namespace);
    assert.equal(neverClaimed(template('ns-a', { 'resourcetemplate.karmada.io/claimed-by': 'other' })), true);
    assert.equal(neverClaimed(template('ns-a', { 'resourcetemplate.karmada.io/claimed-by': '' })), false);
    assert.equal(neverClaimed(template('ns-a')), false);
    assert.equal(neverClaimed({ metadata: { name: 'dfw' } }), false);
  });

  it('counts a template change only outside status, managedFields and resourceVersion', () => {
    const before: KubeObject = {
      metadata: { name: 't', resourceVersion: '1', managedFields: [] },
      spec: { a: 1 },
      status: { x: 1 },
    };
    const statusOnly = {
      ...before,
      metadata: { ...before.metadata, resourceVersion: '2', managedFields: [{}] },
      status: { x: 2 },
    };
    assert.equal(templateChanged({ type: 'MODIFIED', object: statusOnly, previous: before }), false);
    const relabelled = { ...statusOnly, metadata: { ...statusOnly.metadata, labels: { a: 'b' } } };
    assert.equal(templateChanged({ type: 'MODIFIED', object: relabelled, previous: before }), true);
    const finalized = { ...statusOnly, metadata: { ...statusOnly.metadata, finalizers: ['x'] } };
    assert.equal(templateChanged({ type: 'MODIFIED', object: finalized, previous: before }), true);
    assert.equal(templateChanged({ type: 'ADDED', object: before }), true);
  });
});
