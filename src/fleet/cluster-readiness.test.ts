import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterMessages, type Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { ResourceClient } from '../client/types.ts';
import { FakeClock } from '../runtime/clock.ts';
import { Store } from '../runtime/store.ts';
import { reconcile, type ClusterReadinessDeps } from './cluster-readiness.ts';

interface Patch {
  name: string;
  body: {
    metadata?: unknown;
    status: { conditions: { type: string; status: string; reason: string; message: string }[] };
  };
  subresource?: string;
}

function fixture(served: string[]) {
  const clusters = new Store<Cluster>();
  const patches: Patch[] = [];
  let revision = 0;
  const client = {
    patchMerge: (
      name: string,
      _ns: string | undefined,
      body: Patch['body'],
      options?: { subresource?: string },
    ) => {
      patches.push({ name, body, subresource: options?.subresource });
      return Promise.resolve(clusters.get(undefined, name)!);
    },
  } as unknown as ResourceClient<Cluster>;
  const add = (name: string, labels: Record<string, string> = {}, status?: Cluster['status']) =>
    clusters.replace([
      ...clusters.list().filter((c) => c.metadata.name !== name),
      {
        metadata: { name, labels, generation: 1, resourceVersion: String(++revision) },
        spec: { syncMode: 'Push' },
        status,
      },
    ]);
  const deps: ClusterReadinessDeps = {
    clusters,
    client,
    servesCell: (name) => served.includes(name),
    clock: new FakeClock(Date.parse('2026-01-01T00:00:00Z')),
  };
  return { add, deps, patches };
}

describe('cluster readiness', () => {
  it('a Cluster named after a served cell is Ready=True ClusterReady, through status only', async () => {
    const f = fixture(['cell-a']);
    f.add('cell-a', { 'topology.datum.net/location': 'us-central-1' });
    await reconcile('cell-a', f.deps);
    assert.equal(f.patches.length, 1);
    const [patch] = f.patches;
    assert.equal(patch.subresource, 'status');
    const [ready] = patch.body.status.conditions;
    assert.deepEqual(
      { type: ready.type, status: ready.status, reason: ready.reason, message: ready.message },
      { type: 'Ready', status: 'True', reason: 'ClusterReady', message: clusterMessages.ready },
    );
  });

  it('a Cluster the fleet serves no plane for is Ready=False ClusterNotReachable', async () => {
    const f = fixture(['cell-a']);
    f.add('elsewhere');
    await reconcile('elsewhere', f.deps);
    const [ready] = f.patches[0].body.status.conditions;
    assert.deepEqual(
      { status: ready.status, reason: ready.reason, message: ready.message },
      { status: 'False', reason: 'ClusterNotReachable', message: clusterMessages.notReachable },
    );
  });

  it('a Cluster already Ready is not written again', async () => {
    const f = fixture(['cell-a']);
    f.add('cell-a');
    await reconcile('cell-a', f.deps);
    f.add('cell-a', {}, f.patches[0].body.status as Cluster['status']);
    await reconcile('cell-a', f.deps);
    assert.equal(f.patches.length, 1);
  });
});
