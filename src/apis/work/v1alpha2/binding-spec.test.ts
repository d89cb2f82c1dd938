import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindingMessages, bindingName } from './binding-spec.ts';

describe('binding names and messages', () => {
  it("name a binding <name>-<kind> lower-cased, with every ':' as '.'", () => {
    assert.equal(bindingName('NetworkContext', 'default-dfw'), 'default-dfw-networkcontext');
    assert.equal(bindingName('ServingLocation', 'dfw'), 'dfw-servinglocation');
    assert.equal(bindingName('ClusterRole', 'system:controller:foo'), 'system.controller.foo-clusterrole');
  });

  it('count the clusters in a NoClusterFit message', () => {
    assert.equal(
      bindingMessages.noClusterFit(2, '2 cluster(s) did not match the placement cluster affinity constraint'),
      '0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.',
    );
  });
});
