import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkInterface } from '../apis/networking/v1alpha/network-interface.ts';
import { conditionTime } from '../runtime/conditions.ts';
import type { DataPlaneConfig } from './config.ts';
import { desiredConditions, refusalFor } from './data-plane-interfaces.ts';

// 400 ms past a whole second: condition times have whole seconds.
const NOW = Date.parse('2026-12-03T10:00:00.400Z');
const clock = { now: () => NOW } as never;

function iface(
  phase: 'Bound' | 'Available',
  allocated: 'True' | 'False',
  allocatedAt = NOW,
): NetworkInterface {
  return {
    metadata: { name: 'web-0', namespace: 'ns-u' },
    spec: { network: { name: 'default' } },
    status: {
      phase,
      conditions: [
        {
          type: 'Allocated',
          status: allocated,
          reason: 'Allocated',
          message: '',
          lastTransitionTime: conditionTime(allocatedAt),
        },
      ],
    },
  };
}

const config = (refuse: DataPlaneConfig['refuse'] = [], delayMs = 0): DataPlaneConfig => ({
  mode: 'simulated',
  delayMs,
  refuse,
});
const summary = (result: ReturnType<typeof desiredConditions>) =>
  'conditions' in result ? result.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`) : result;

describe('simulated data plane: interfaces', () => {
  it('a bound, allocated interface is Prepared and Programmed', () => {
    assert.deepEqual(
      summary(desiredConditions(iface('Bound', 'True'), { config: config(), location: 'l', clock })),
      ['Prepared=True Prepared', 'Programmed=True Programmed'],
    );
  });

  it('a refusal for its network in the cell location makes Programmed False with its reason', () => {
    const refuse = [{ network: 'default', location: 'l', reason: 'VLANExhausted', message: 'no VLAN' }];
    assert.deepEqual(
      summary(desiredConditions(iface('Bound', 'True'), { config: config(refuse), location: 'l', clock })),
      ['Prepared=True Prepared', 'Programmed=False VLANExhausted'],
    );
    assert.equal(refusalFor(config(refuse), 'default', 'elsewhere'), undefined);
    assert.equal(refusalFor(config(refuse), 'other', 'l'), undefined);
  });

  it('a retained or unallocated interface is set back to Unknown Pending', () => {
    for (const [phase, allocated] of [
      ['Available', 'True'],
      ['Bound', 'False'],
    ] as const)
      assert.deepEqual(
        summary(desiredConditions(iface(phase, allocated), { config: config(), location: 'l', clock })),
        ['Prepared=Unknown Pending', 'Programmed=Unknown Pending'],
      );
  });

  it('leaves an interface the claim controller has not reported on yet alone (no Pending write)', () => {
    const fresh: NetworkInterface = {
      metadata: { name: 'web-0', namespace: 'ns-u' },
      spec: { network: { name: 'default' } },
    };
    assert.deepEqual(summary(desiredConditions(fresh, { config: config(), location: 'l', clock })), []);
  });

  it('waits out delayMs from Allocated before it reports', () => {
    const result = desiredConditions(iface('Bound', 'True', NOW - 400), {
      config: config([], 1000),
      location: 'l',
      clock,
    });
    assert.deepEqual(result, { waitMs: 600 });
    const later = desiredConditions(iface('Bound', 'True', NOW - 1000), {
      config: config([], 1000),
      location: 'l',
      clock,
    });
    assert.ok('conditions' in later);
  });
});
