import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import { gatewayFor } from './gateway.ts';

function subnet(
  name: string,
  family: 'IPv4' | 'IPv6',
  startAddress: string,
  prefixLength: number,
  status?: Subnet['status'],
): Subnet {
  return {
    metadata: { name, namespace: 'h' },
    spec: {
      subnetClass: 'private',
      networkContext: { name: 'vpc-us-central-1' },
      location: { name: 'us-central-1' },
      ipFamily: family,
      startAddress,
      prefixLength,
    },
    ...(status && { status }),
  };
}

const C = 'vpc-us-central-1';

describe('the gateway rule', () => {
  it('gives the address after the start, in canonical form', () => {
    assert.deepEqual(gatewayFor([subnet('s', 'IPv6', 'fd20::', 64)], C, 'IPv6'), {
      kind: 'gateway',
      gateway: 'fd20::1',
    });
    assert.deepEqual(gatewayFor([subnet('s', 'IPv4', '10.128.0.0', 24)], C, 'IPv4'), {
      kind: 'gateway',
      gateway: '10.128.0.1',
    });
  });

  it('leaves the gateway alone when no subnet addresses the family or context', () => {
    assert.deepEqual(gatewayFor([subnet('s', 'IPv6', 'fd20::', 64)], C, 'IPv4'), { kind: 'none' });
    assert.deepEqual(gatewayFor([subnet('s', 'IPv4', '10.0.0.0', 24)], 'other-us-central-1', 'IPv4'), {
      kind: 'none',
    });
  });

  it('uses the first subnet by name', () => {
    const outcome = gatewayFor(
      [subnet('b', 'IPv4', '10.1.0.0', 24), subnet('a', 'IPv4', '10.2.0.0', 24)],
      C,
      'IPv4',
    );
    assert.deepEqual(outcome, { kind: 'gateway', gateway: '10.2.0.1' });
  });

  it('reads start and length from status when status states them, even an empty start', () => {
    assert.deepEqual(
      gatewayFor(
        [subnet('s', 'IPv4', '10.0.0.0', 24, { startAddress: '10.9.0.0', prefixLength: 16 })],
        C,
        'IPv4',
      ),
      { kind: 'gateway', gateway: '10.9.0.1' },
    );
    const empty = gatewayFor([subnet('s', 'IPv4', '10.128.0.0', 24, { startAddress: '' })], C, 'IPv4');
    assert.equal(empty.kind, 'refused');
    assert.match(empty.kind === 'refused' ? empty.message : '', /states no usable start address/);
  });

  it('refuses starts that are no address, of the other family, or have no next address', () => {
    const message = (start: string, length: number) => {
      const outcome = gatewayFor([subnet('vpc-v4', 'IPv4', start, length)], C, 'IPv4');
      return outcome.kind === 'refused' ? outcome.message : `not refused: ${JSON.stringify(outcome)}`;
    };
    assert.equal(
      message('not-an-address', 24),
      'Subnet "vpc-v4" addresses family IPv4 in this location and states no usable start address, so the interface has no gateway',
    );
    assert.equal(
      message('10.128.0.0/24', 24),
      message('not-an-address', 24).replace('not-an-address', '10.128.0.0/24'),
    );
    assert.equal(
      message('2001:db8::', 24),
      'Subnet "vpc-v4" addresses family IPv4 in this location but its start address 2001:db8:: is not an IPv4 address, so the interface has no gateway',
    );
    assert.equal(
      message('10.128.0.7', 32),
      'Subnet "vpc-v4" addresses family IPv4 in this location but 10.128.0.7/32 has no address after its start, so the interface has no gateway',
    );
    assert.match(message('255.255.255.255', 24), /255\.255\.255\.255\/24 has no address after its start/);
    assert.match(message('10.0.0.0', 33), /10\.0\.0\.0\/33 has no address after its start/);
  });
});
