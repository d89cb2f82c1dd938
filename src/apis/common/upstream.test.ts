import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hubNamespaceName,
  projectOfUpstreamClusterName,
  routingMessages,
  upstreamClusterName,
} from './upstream.ts';

describe('upstream labels', () => {
  it('encode a project as cluster-<project> with every / written as _', () => {
    assert.equal(upstreamClusterName('project-alpha'), 'cluster-project-alpha');
    assert.equal(upstreamClusterName('org/project'), 'cluster-org_project');
  });

  it('decode by replacing _ with /, stripping cluster- and one leading /', () => {
    assert.equal(projectOfUpstreamClusterName('cluster-project-alpha'), 'project-alpha');
    assert.equal(projectOfUpstreamClusterName('cluster-org_project'), 'org/project');
    assert.equal(projectOfUpstreamClusterName('cluster-_a_b'), 'a/b');
    assert.equal(projectOfUpstreamClusterName('project-alpha'), 'project-alpha');
  });

  it('decode a value that leaves nothing to no project', () => {
    assert.equal(projectOfUpstreamClusterName('cluster-'), undefined);
    assert.equal(projectOfUpstreamClusterName('cluster-_'), undefined);
    assert.equal(projectOfUpstreamClusterName(''), undefined);
  });

  it('round-trip every project name without _', () => {
    for (const project of ['p', 'project-alpha', 'org/team/p']) {
      assert.equal(projectOfUpstreamClusterName(upstreamClusterName(project)), project);
    }
  });

  it('name the hub namespace of a project namespace after its uid', () => {
    assert.equal(
      hubNamespaceName('0b6f1d2e-8c1a-4d2b-9b7e-3f5a6c7d8e9f'),
      'ns-0b6f1d2e-8c1a-4d2b-9b7e-3f5a6c7d8e9f',
    );
  });

  it('word every routing failure as controllers.md §1.1 does', () => {
    assert.equal(routingMessages.namespaceNotFound('ns-a'), 'namespace "ns-a" was not found');
    assert.equal(
      routingMessages.noClusterNameLabel('ns-a'),
      'namespace "ns-a" carries no meta.datumapis.com/upstream-cluster-name label',
    );
    assert.equal(
      routingMessages.noProject('ns-a', 'cluster-'),
      'namespace "ns-a" has meta.datumapis.com/upstream-cluster-name="cluster-", which names no project',
    );
    assert.equal(
      routingMessages.noNamespaceLabel('ns-a'),
      'namespace "ns-a" carries no meta.datumapis.com/upstream-namespace label',
    );
  });
});
