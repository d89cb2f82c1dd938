import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import type { ResourceClient } from '../../client/types.ts';
import { report } from './binding-report.ts';
import { PresenceMetrics } from './presence-metrics.ts';

const CREATED = '2030-01-01T00:00:00Z';

function binding(name: string, ready?: 'True' | 'False'): NetworkBinding {
  return {
    metadata: { name, namespace: 'h', generation: 1, creationTimestamp: CREATED },
    spec: { network: { name: 'vpc' }, location: { name: 'l' } },
    status: ready && {
      conditions: [{ type: 'Ready', status: ready, reason: 'R', message: 'm', lastTransitionTime: CREATED }],
    },
  };
}

/** A client that echoes each status patch onto the binding it was given. */
function echoingClient(bindings: NetworkBinding[]): ResourceClient<NetworkBinding> {
  return {
    async patchMerge(name: string, _ns: string, body: { status: NetworkBinding['status'] }) {
      const found = bindings.find((b) => b.metadata.name === name)!;
      return { ...found, status: body.status };
    },
  } as unknown as ResourceClient<NetworkBinding>;
}

describe('presence metrics', () => {
  it('observes binding→Ready seconds once per transition to Ready, and counts Ready bindings at scrape', async () => {
    const registry = new Registry();
    const stored = [binding('a'), binding('b', 'True'), binding('c', 'False')];
    const metrics = new PresenceMetrics(registry, () => stored);
    const now = Date.parse(CREATED) + 7_000;
    const writer = {
      client: echoingClient(stored),
      now: () => now,
      turnedReady: (b: NetworkBinding, at: number) => metrics.turnedReady(b, at),
    };
    const ready = { status: 'True' as const, reason: 'Ready', message: 'ready' };
    await report(stored, ready, writer);
    // `b` was Ready already: only `a` and `c` turned Ready, each 7 s after creation.
    const text = await registry.metrics();
    assert.match(text, /netpresence_network_binding_ready_duration_seconds_bucket\{le="5"\} 0\n/);
    assert.match(text, /netpresence_network_binding_ready_duration_seconds_bucket\{le="10"\} 2\n/);
    assert.match(text, /netpresence_network_binding_ready_duration_seconds_count 2\n/);
    assert.match(text, /netpresence_network_binding_ready_duration_seconds_sum 14\n/);
    assert.match(text, /netpresence_network_bindings_ready 1\n/, 'the store holds one Ready binding');
    stored[0] = binding('a', 'True');
    assert.match(await registry.metrics(), /netpresence_network_bindings_ready 2\n/);

    // An unchanged Ready report observes nothing more.
    await report([binding('b', 'True')], ready, writer);
    assert.match(await registry.metrics(), /netpresence_network_binding_ready_duration_seconds_count 2\n/);
  });

  it("a second controller on the same registry replaces the first one's series", () => {
    const registry = new Registry();
    new PresenceMetrics(registry, () => []);
    assert.doesNotThrow(() => new PresenceMetrics(registry, () => []));
  });
});
