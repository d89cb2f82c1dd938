import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, ResourceClient } from '../client/types.ts';
import { changedEntries, changedLabels, patchStatus } from './writes.ts';

type Thing = KubeObject & { status?: { conditions?: unknown[]; ipam?: { prefix: string } } };

function recordingClient(): { client: ResourceClient<Thing>; patches: unknown[] } {
  const patches: unknown[] = [];
  const client = {
    patchMerge: async (name: string, namespace: string | undefined, patch: unknown, options: unknown) => {
      patches.push({ name, namespace, patch, options });
      return { metadata: { name, namespace, resourceVersion: '8' } } as Thing;
    },
  } as unknown as ResourceClient<Thing>;
  return { client, patches };
}

const thing: Thing = {
  metadata: { name: 'vpc', namespace: 'default', resourceVersion: '7', labels: { mine: 'a', theirs: 'x' } },
  status: { conditions: [{ type: 'Ready' }], ipam: { prefix: 'fd20::/48' } },
};

describe('writing only what changed', () => {
  it('sends no status patch when every given key holds its value', async () => {
    const { client, patches } = recordingClient();
    const result = await patchStatus(client, thing, {
      ipam: { prefix: 'fd20::/48' },
      conditions: [{ type: 'Ready' }],
    });
    assert.equal(result, thing);
    assert.deepEqual(patches, []);
  });

  it('patches exactly the changed status keys, guarded by the resourceVersion', async () => {
    const { client, patches } = recordingClient();
    await patchStatus(client, thing, { ipam: { prefix: 'fd20:0:1::/48' }, conditions: [{ type: 'Ready' }] });
    assert.deepEqual(patches, [
      {
        name: 'vpc',
        namespace: 'default',
        patch: { metadata: { resourceVersion: '7' }, status: { ipam: { prefix: 'fd20:0:1::/48' } } },
        options: { subresource: 'status' },
      },
    ]);
  });

  it('names only owned labels that differ', () => {
    assert.equal(changedLabels(thing, { mine: 'a' }), undefined);
    assert.deepEqual(changedLabels(thing, { mine: 'b', added: 'c' }), { mine: 'b', added: 'c' });
    assert.deepEqual(changedLabels(undefined, { mine: 'a' }), { mine: 'a' });
  });

  it('turns an owned map into another, nulling dropped entries', () => {
    assert.equal(changedEntries({ a: '1' }, { a: '1' }), undefined);
    assert.deepEqual(changedEntries({ a: '1', b: '2' }, { a: '3', c: '4' }), { a: '3', b: null, c: '4' });
    assert.deepEqual(changedEntries(undefined, { a: '1' }), { a: '1' });
  });
});
