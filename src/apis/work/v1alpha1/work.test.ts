import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executionSpaceName, workName } from './work.ts';

describe('work names', () => {
  it('match the test vectors of propagation.md §4.1', () => {
    const vectors: [kind: string, name: string, namespace: string | undefined, work: string][] = [
      ['Deployment', 'nginx', 'default', 'nginx-687f7fb96f'],
      ['NetworkContext', 'default-dfw', 'ns-a', 'default-dfw-855f9b568d'],
      ['Subnet', 'default-dfw', 'ns-a', 'default-dfw-b9bc5f98d'],
      ['NetworkContext', 'default-dfw', 'ns-0b6f1d2e-8c1a-4d2b-9b7e-3f5a6c7d8e9f', 'default-dfw-5b5f9687b'],
      ['ServingLocation', 'dfw', undefined, 'dfw-777bfbb654'],
      ['Namespace', 'ns-a', undefined, 'ns-a-75cb9b7478'],
      ['ClusterRole', 'system:controller:foo', undefined, 'system.controller.foo-77f96cf7cf'],
    ];
    for (const [kind, name, namespace, work] of vectors) {
      assert.equal(workName(kind, name, namespace), work, `${kind} ${namespace ?? ''}/${name}`);
    }
  });

  it('name a cluster execution space karmada-es-<cluster>', () => {
    assert.equal(executionSpaceName('cell-a'), 'karmada-es-cell-a');
  });
});
