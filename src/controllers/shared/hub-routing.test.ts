import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import type { KubeObject } from '../../client/types.ts';
import { Store } from '../../runtime/store.ts';
import {
  hubNamespacesOf,
  hubNamespacesOfProject,
  namespaceRoutingIndexes,
  routeNamespace,
} from './hub-routing.ts';

function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, labels, resourceVersion: '1' } };
}

const labelled = (name: string, cluster: string, projectNamespace: string) =>
  namespace(name, { [UPSTREAM_CLUSTER_NAME_LABEL]: cluster, [UPSTREAM_NAMESPACE_LABEL]: projectNamespace });

describe('hub-namespace routing', () => {
  it('refuses, in the spec order, with the exact ProjectUnresolved messages', () => {
    assert.deepEqual(routeNamespace('gone', undefined), {
      resolved: false,
      message: 'namespace "gone" was not found',
    });
    assert.deepEqual(routeNamespace('plain', namespace('plain')), {
      resolved: false,
      message: 'namespace "plain" carries no meta.datumapis.com/upstream-cluster-name label',
    });
    assert.deepEqual(routeNamespace('empty', namespace('empty', { [UPSTREAM_CLUSTER_NAME_LABEL]: '' })), {
      resolved: false,
      message: 'namespace "empty" carries no meta.datumapis.com/upstream-cluster-name label',
    });
    assert.deepEqual(routeNamespace('bare', labelled('bare', 'cluster-', 'default')), {
      resolved: false,
      message:
        'namespace "bare" has meta.datumapis.com/upstream-cluster-name="cluster-", which names no project',
    });
    assert.deepEqual(
      routeNamespace('half', namespace('half', { [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-p' })),
      {
        resolved: false,
        message: 'namespace "half" carries no meta.datumapis.com/upstream-namespace label',
      },
    );
  });

  it('resolves a labelled namespace and keeps the raw cluster-name value', () => {
    assert.deepEqual(routeNamespace('ns-1', labelled('ns-1', 'cluster-_org_p', 'default')), {
      resolved: true,
      project: 'org/p',
      projectNamespace: 'default',
      clusterNameLabel: 'cluster-_org_p',
    });
  });

  it('indexes resolvable namespaces by project namespace and by project, and nothing else', () => {
    const store = new Store<KubeObject>();
    store.addIndex('byProjectNamespace', namespaceRoutingIndexes.byProjectNamespace);
    store.addIndex('byProject', namespaceRoutingIndexes.byProject);
    store.apply({ type: 'ADDED', object: labelled('ns-a', 'cluster-alpha', 'default') });
    store.apply({ type: 'ADDED', object: labelled('ns-b', 'cluster-alpha', 'web') });
    store.apply({ type: 'ADDED', object: labelled('ns-c', 'cluster-beta', 'default') });
    store.apply({ type: 'ADDED', object: namespace('plain') });
    assert.deepEqual(hubNamespacesOf(store, 'alpha', 'default'), ['ns-a']);
    assert.deepEqual(hubNamespacesOfProject(store, 'alpha'), ['ns-a', 'ns-b']);
    assert.deepEqual(hubNamespacesOfProject(store, 'plain'), []);
  });
});
