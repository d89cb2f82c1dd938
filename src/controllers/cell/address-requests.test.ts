import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDnsSubdomain } from '../../apis/common/names.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import { addressClaimName } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { allocationOwner, bareAddress, heldAddresses } from './address-requests.ts';

describe('address requests', () => {
  it('bare form drops only a host prefix', () => {
    assert.equal(bareAddress('203.0.113.1/32'), '203.0.113.1');
    assert.equal(bareAddress('fd20::5/128'), 'fd20::5');
    assert.equal(bareAddress('203.0.113.0/24'), '203.0.113.0/24');
    assert.equal(bareAddress('10.0.0.1/128'), '10.0.0.1/128');
    assert.equal(bareAddress('203.0.113.9'), '203.0.113.9');
  });

  it('names IPClaims by claim, cell and discriminator, hashing long names deterministically', () => {
    assert.equal(addressClaimName('x', 'c', 'f-ipv6'), 'x.c-f-ipv6');
    assert.equal(addressClaimName('x', 'c', 'c-f-ipv6'), 'x.c-c-f-ipv6');
    const long = 'a'.repeat(253);
    const v6 = addressClaimName(long, 'c', 'f-ipv6');
    const v4 = addressClaimName(long, 'c', 'f-ipv4');
    assert.notEqual(v6, v4);
    assert.equal(v6, addressClaimName(long, 'c', 'f-ipv6'));
    assert.ok(isDnsSubdomain(v6) && isDnsSubdomain(v4));
    assert.match(v6, /^a{240}-[0-9a-f]{12}$/);
  });

  it('finds the owner of an interface allocations: annotation, claimRef, then its name', () => {
    const iface = (annotations?: Record<string, string>, claimRef?: string): NetworkInterface => ({
      metadata: { name: 'shared', namespace: 'h', ...(annotations && { annotations }) },
      spec: { network: { name: 'vpc' }, ...(claimRef && { claimRef: { name: claimRef } }) },
    });
    assert.equal(
      allocationOwner(iface({ 'networking.datumapis.com/allocation-claim': 'minter' }, 'b')),
      'minter',
    );
    assert.equal(allocationOwner(iface(undefined, 'b')), 'b');
    assert.equal(allocationOwner(iface()), 'shared');
  });

  it('lists the held addresses with their discriminators', () => {
    const iface: NetworkInterface = {
      metadata: { name: 'i', namespace: 'h' },
      spec: {
        network: { name: 'vpc' },
        addresses: [
          { family: 'IPv6', address: 'fd20::1:0:0/96', primary: true, class: '' },
          { family: 'IPv4', address: '10.128.0.1/32', primary: false, class: '' },
        ],
        externalAddresses: [{ family: 'IPv4', address: '203.0.113.1', class: 'datum-public-v4' }],
      },
    };
    assert.deepEqual(
      heldAddresses(iface).map((a) => a.discriminator),
      ['f-ipv6', 'f-ipv4', 'c-datum-public-v4'],
    );
  });
});
