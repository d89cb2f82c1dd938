import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { choosePolicy } from './choice.ts';
import type { Policy } from './policy-model.ts';

const NC = 'networking.datumapis.com/v1alpha';
const template: KubeObject = {
  apiVersion: NC,
  kind: 'NetworkContext',
  metadata: { name: 'default-dfw', namespace: 'ns-a', labels: { loc: 'dfw' } },
};

function policy(
  kind: 'PropagationPolicy' | 'ClusterPropagationPolicy',
  name: string,
  entry: Record<string, unknown>,
  priority = 0,
  extra: Partial<KubeObject['metadata']> = {},
): Policy {
  const label =
    kind === 'PropagationPolicy'
      ? 'propagationpolicy.karmada.io/permanent-id'
      : 'clusterpropagationpolicy.karmada.io/permanent-id';
  return {
    kind,
    metadata: {
      name,
      ...(kind === 'PropagationPolicy' ? { namespace: 'ns-a' } : {}),
      labels: { [label]: `id-${name}` },
      ...extra,
    },
    spec: { resourceSelectors: [{ apiVersion: NC, kind: 'NetworkContext', ...entry }], priority },
  };
}

const byLabel = { labelSelector: { matchLabels: { loc: 'dfw' } } };

describe('the choice for an unclaimed template', () => {
  it('a matching PP beats every CPP, whatever the priorities', () => {
    const choice = choosePolicy(
      template,
      [policy('PropagationPolicy', 'pin', { name: 'default-dfw' }, 0)],
      [policy('ClusterPropagationPolicy', 'all-nc', {}, 100)],
    );
    assert.equal(choice?.policy.metadata.name, 'pin');
    assert.equal(choice?.tier, 'PropagationPolicy');
    assert.equal(choice?.id, 'id-pin');
  });

  it('the highest priority wins, then the implicit priority, then the first name bytewise', () => {
    const cpps = [
      policy('ClusterPropagationPolicy', 'a-low', byLabel, 1),
      policy('ClusterPropagationPolicy', 'b-high', byLabel, 5),
    ];
    assert.equal(choosePolicy(template, [], cpps)?.policy.metadata.name, 'b-high');
    const implicit = [
      policy('ClusterPropagationPolicy', 'aa-all', {}),
      policy('ClusterPropagationPolicy', 'bb-label', byLabel),
      policy('ClusterPropagationPolicy', 'cc-name', { name: 'default-dfw' }),
    ];
    assert.equal(choosePolicy(template, [], implicit)?.policy.metadata.name, 'cc-name');
    assert.equal(choosePolicy(template, [], implicit.slice(0, 2))?.policy.metadata.name, 'bb-label');
    const tie = [
      policy('ClusterPropagationPolicy', 'nso-resources', byLabel),
      policy('ClusterPropagationPolicy', 'location-dfw', byLabel),
    ];
    assert.equal(choosePolicy(template, [], tie)?.policy.metadata.name, 'location-dfw');
    const bytewise = [
      policy('ClusterPropagationPolicy', 'b', byLabel),
      policy('ClusterPropagationPolicy', 'B', byLabel),
    ];
    assert.equal(choosePolicy(template, [], bytewise)?.policy.metadata.name, 'B');
  });

  it('ignores policies being deleted or without a permanent-id', () => {
    const deleting = policy('ClusterPropagationPolicy', 'a', byLabel, 9, {
      deletionTimestamp: '2026-01-01T00:00:00Z',
    });
    const unlabelled = { ...policy('ClusterPropagationPolicy', 'b', byLabel, 9), metadata: { name: 'b' } };
    const live = policy('ClusterPropagationPolicy', 'c', byLabel, 0);
    assert.equal(choosePolicy(template, [], [deleting, unlabelled, live])?.policy.metadata.name, 'c');
    assert.equal(choosePolicy(template, [], [deleting, unlabelled]), undefined);
  });

  it('a cluster-scoped template never considers PPs', () => {
    const sl = { apiVersion: NC, kind: 'NetworkContext', metadata: { name: 'dfw' } };
    assert.equal(choosePolicy(sl, [policy('PropagationPolicy', 'p', {})], []), undefined);
  });
});
