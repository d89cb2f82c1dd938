import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { matchesLabelSelector } from './label-selector-match.ts';
import { implicitPriority, scoreEntry, type SelectingPolicy } from './selectors.ts';

const NC = 'networking.datumapis.com/v1alpha';
const template: KubeObject = {
  apiVersion: NC,
  kind: 'NetworkContext',
  metadata: { name: 'default-dfw', namespace: 'ns-a', labels: { loc: 'dfw' } },
};
const cpp = (entry: Record<string, unknown>): SelectingPolicy => ({
  tier: 'ClusterPropagationPolicy',
  resourceSelectors: [{ apiVersion: NC, kind: 'NetworkContext', ...entry }],
});
const pp = (namespace: string, entry: Record<string, unknown>): SelectingPolicy => ({
  tier: 'PropagationPolicy',
  namespace,
  resourceSelectors: [{ apiVersion: NC, kind: 'NetworkContext', ...entry }],
});

describe('selector scoring', () => {
  it('scores name 3, label selector 2, kind only 1, mismatch 0', () => {
    assert.equal(implicitPriority(cpp({ name: 'default-dfw' }), template), 3);
    assert.equal(implicitPriority(cpp({ labelSelector: { matchLabels: { loc: 'dfw' } } }), template), 2);
    assert.equal(implicitPriority(cpp({}), template), 1);
    assert.equal(implicitPriority(cpp({ name: 'other' }), template), 0);
    assert.equal(implicitPriority(cpp({ labelSelector: { matchLabels: { loc: 'ord' } } }), template), 0);
  });

  it('compares apiVersion exactly', () => {
    const policy = cpp({});
    policy.resourceSelectors[0].apiVersion = 'networking.datumapis.com/v1';
    assert.equal(implicitPriority(policy, template), 0);
  });

  it('a set name is decisive: the label selector is not consulted', () => {
    assert.equal(
      implicitPriority(
        cpp({ name: 'default-dfw', labelSelector: { matchLabels: { loc: 'ord' } } }),
        template,
      ),
      3,
    );
  });

  it("a PP's empty namespace is its own, and another namespace matches nothing", () => {
    assert.equal(implicitPriority(pp('ns-a', {}), template), 1);
    assert.equal(implicitPriority(pp('ns-b', {}), template), 0);
    assert.equal(
      implicitPriority(pp('ns-a', { namespace: 'ns-b' }), {
        ...template,
        metadata: { ...template.metadata, namespace: 'ns-b' },
      }),
      0,
    );
  });

  it("a CPP's empty namespace is every namespace, and a namespace fails a cluster-scoped template", () => {
    assert.equal(scoreEntry(cpp({}), cpp({}).resourceSelectors[0], template), 1);
    const clusterScoped = { ...template, metadata: { name: 'dfw' } };
    assert.equal(implicitPriority(cpp({ namespace: 'ns-a' }), clusterScoped), 0);
    assert.equal(implicitPriority(cpp({}), clusterScoped), 1);
  });

  it('the best entry gives the implicit priority', () => {
    const policy: SelectingPolicy = {
      tier: 'ClusterPropagationPolicy',
      resourceSelectors: [
        { apiVersion: NC, kind: 'NetworkContext' },
        { apiVersion: NC, kind: 'NetworkContext', name: 'default-dfw' },
      ],
    };
    assert.equal(implicitPriority(policy, template), 3);
  });
});

describe('label selectors', () => {
  it('ANDs matchLabels and matchExpressions', () => {
    const selector = {
      matchLabels: { a: '1' },
      matchExpressions: [{ key: 'b', operator: 'In', values: ['2'] }],
    };
    assert.equal(matchesLabelSelector(selector, { a: '1', b: '2' }), true);
    assert.equal(matchesLabelSelector(selector, { a: '1', b: '3' }), false);
  });

  it('NotIn matches a missing key; Exists and DoesNotExist read presence', () => {
    assert.equal(
      matchesLabelSelector({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] }, {}),
      true,
    );
    assert.equal(
      matchesLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { x: '' }),
      true,
    );
    assert.equal(
      matchesLabelSelector({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: '1' }),
      false,
    );
  });

  it('the empty selector matches everything', () => {
    assert.equal(matchesLabelSelector({}, undefined), true);
  });

  it('an invalid selector matches nothing', () => {
    assert.equal(
      matchesLabelSelector(
        { matchExpressions: [{ key: 'x', operator: 'Equals', values: ['1'] }] },
        { x: '1' },
      ),
      false,
    );
    assert.equal(
      matchesLabelSelector({ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }, { x: '1' }),
      false,
    );
    assert.equal(
      matchesLabelSelector(
        { matchExpressions: [{ key: 'x', operator: 'Exists', values: ['1'] }] },
        { x: '1' },
      ),
      false,
    );
  });
});
