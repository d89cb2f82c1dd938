import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import type { ResourceClient } from '../../client/types.ts';
import { report, stampLabels, type BindingWriter } from './binding-report.ts';

interface Patch {
  name: string;
  body: any;
  subresource?: string;
}

/** A client that applies merge patches shallowly enough for these tests and records them. */
function writer(now = Date.parse('2030-01-01T00:00:00Z'), fail: string[] = []) {
  const patches: Patch[] = [];
  const client = {
    async patchMerge(name: string, _namespace: string, body: any, options: { subresource?: string } = {}) {
      if (fail.includes(name)) throw new Error(`refused ${name}`);
      patches.push({ name, body, subresource: options.subresource });
      return { metadata: { name }, spec: {}, ...body } as NetworkBinding;
    },
  } as unknown as ResourceClient<NetworkBinding>;
  const w: BindingWriter = { client, now: () => now };
  return { w, patches };
}

function binding(
  name: string,
  status?: NetworkBinding['status'],
  labels?: Record<string, string>,
): NetworkBinding {
  return {
    metadata: { name, namespace: 'h', generation: 2, labels },
    spec: { network: { name: 'vpc' }, location: { name: 'l' } },
    status,
  };
}

const notReady = {
  status: 'False' as const,
  reason: 'NetworkContextNotReady',
  message: 'Network context is not ready.',
};

describe('binding report', () => {
  it('writes Ready with the generation and the ref once, then nothing when unchanged', async () => {
    const { w, patches } = writer();
    const ref = { namespace: 'default', name: 'vpc-l' };
    const [written] = await report([binding('web')], { ...notReady, ref }, w);
    assert.equal(patches.length, 1);
    assert.equal(patches[0].subresource, 'status');
    assert.deepEqual(patches[0].body.status.networkContextRef, ref);
    assert.equal(patches[0].body.status.conditions[0].observedGeneration, 2);
    await report([binding('web', written.status)], { ...notReady, ref }, w);
    assert.equal(patches.length, 1, 'an unchanged outcome writes nothing');
  });

  it('keeps the ref across a regression and moves the time only with status', async () => {
    const { w, patches } = writer();
    const held = {
      networkContextRef: { namespace: 'default', name: 'vpc-l' },
      conditions: [
        {
          type: 'Ready',
          status: 'False' as const,
          reason: 'NetworkContextNotReady',
          message: 'm',
          lastTransitionTime: 'T0',
          observedGeneration: 2,
        },
      ],
    };
    await report(
      [binding('web', held)],
      { status: 'False', reason: 'LocationNotAvailable', message: 'gone' },
      w,
    );
    assert.equal(patches[0].body.status.networkContextRef, undefined, 'the ref is not rewritten');
    assert.equal(patches[0].body.status.conditions[0].lastTransitionTime, 'T0');
  });

  it('attempts every binding and throws the failures together', async () => {
    const { w, patches } = writer(0, ['a', 'b']);
    await assert.rejects(report([binding('a'), binding('ok'), binding('b')], notReady, w), AggregateError);
    assert.deepEqual(
      patches.map((p) => p.name),
      ['ok'],
    );
  });

  it('stamps only missing or different labels', async () => {
    const { w, patches } = writer();
    await stampLabels(
      [binding('web', undefined, { 'networking.datumapis.com/network': 'vpc', other: 'x' })],
      {
        'networking.datumapis.com/network': 'vpc',
        'networking.datumapis.com/location': 'l',
      },
      w,
    );
    assert.deepEqual(patches[0].body, { metadata: { labels: { 'networking.datumapis.com/location': 'l' } } });
    await stampLabels(
      [binding('lb', undefined, { 'networking.datumapis.com/network': 'vpc' })],
      { 'networking.datumapis.com/network': 'vpc' },
      w,
    );
    assert.equal(patches.length, 1);
  });
});
