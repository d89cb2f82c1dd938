import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  addressClaimName,
  classDiscriminator,
  familyDiscriminator,
  legacyAddressClaimName,
  networkPrefixClaimName,
  subnetPrefixClaimName,
} from './ip-claim.ts';

function hash12(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
}

describe('IPClaim names', () => {
  it('name the range claims after the UID of the network and of the context', () => {
    assert.equal(networkPrefixClaimName('u1'), 'network-u1');
    assert.equal(subnetPrefixClaimName('u2'), 'networkcontext-u2');
  });

  it('name an address claim <claim>.<cell>-<discriminator>', () => {
    assert.equal(addressClaimName('web-0', 'cell-a', familyDiscriminator('IPv4')), 'web-0.cell-a-f-ipv4');
    assert.equal(addressClaimName('web-0', 'cell-a', familyDiscriminator('IPv6')), 'web-0.cell-a-f-ipv6');
    assert.equal(
      addressClaimName('web-0', 'cell-a', classDiscriminator('datum-public-v4')),
      'web-0.cell-a-c-datum-public-v4',
    );
  });

  it('S131 give claims of one name in two cells different IPClaims', () => {
    assert.notEqual(
      addressClaimName('api-0', 'cell-a', 'f-ipv6'),
      addressClaimName('api-0', 'cell-b', 'f-ipv6'),
    );
  });

  it('keep a readable name of exactly 253 characters', () => {
    const claim = 'a'.repeat(253 - '.c-f-ipv6'.length);
    assert.equal(addressClaimName(claim, 'c', 'f-ipv6'), `${claim}.c-f-ipv6`);
  });

  it('cut <claim>.<cell> that would pass 253 characters to 240, then append a hash of all three', () => {
    const claim = 'a'.repeat(250);
    const name = addressClaimName(claim, 'cell-a', 'f-ipv6');
    assert.equal(name, `${'a'.repeat(240)}-${hash12(claim, 'cell-a', 'f-ipv6')}`);
    assert.equal(name.length, 253);
    assert.notEqual(name, addressClaimName(claim, 'cell-b', 'f-ipv6'));
  });

  it('trim trailing - and . at the cut', () => {
    const claim = `${'a'.repeat(238)}.-b${'c'.repeat(20)}`;
    assert.equal(
      addressClaimName(claim, 'cell-a', 'f-ipv4'),
      `${'a'.repeat(238)}-${hash12(claim, 'cell-a', 'f-ipv4')}`,
    );
  });

  it('hash a name that is no DNS-1123 subdomain, such as a class with upper case', () => {
    assert.equal(
      addressClaimName('web-0', 'cell-a', 'c-Public'),
      `web-0.cell-a-${hash12('web-0', 'cell-a', 'c-Public')}`,
    );
  });

  it('keep the name of earlier versions, without the cell, for reading what they made', () => {
    assert.equal(legacyAddressClaimName('web-0', 'f-ipv6'), 'web-0-f-ipv6');
    const claim = 'a'.repeat(250);
    assert.equal(legacyAddressClaimName(claim, 'f-ipv6'), `${'a'.repeat(240)}-${hash12(claim, 'f-ipv6')}`);
  });
});
