import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  addressClaimName,
  classDiscriminator,
  familyDiscriminator,
  networkPrefixClaimName,
  subnetPrefixClaimName,
} from './ip-claim.ts';

function hash12(claim: string, discriminator: string): string {
  return createHash('sha256').update(`${claim}\0${discriminator}`).digest('hex').slice(0, 12);
}

describe('IPClaim names', () => {
  it('name the range claims after the UID of the network and of the context', () => {
    assert.equal(networkPrefixClaimName('u1'), 'network-u1');
    assert.equal(subnetPrefixClaimName('u2'), 'networkcontext-u2');
  });

  it('name an address claim <claim>-<discriminator>', () => {
    assert.equal(addressClaimName('web-0', familyDiscriminator('IPv4')), 'web-0-f-ipv4');
    assert.equal(addressClaimName('web-0', familyDiscriminator('IPv6')), 'web-0-f-ipv6');
    assert.equal(addressClaimName('web-0', classDiscriminator('datum-public-v4')), 'web-0-c-datum-public-v4');
  });

  it('keep a readable name of exactly 253 characters', () => {
    const claim = 'a'.repeat(253 - '-f-ipv6'.length);
    assert.equal(addressClaimName(claim, 'f-ipv6'), `${claim}-f-ipv6`);
  });

  it('cut a claim name that would pass 253 characters to 240, then append a hash', () => {
    const claim = 'a'.repeat(250);
    const name = addressClaimName(claim, 'f-ipv6');
    assert.equal(name, `${'a'.repeat(240)}-${hash12(claim, 'f-ipv6')}`);
    assert.equal(name.length, 253);
  });

  it('trim trailing - and . at the cut', () => {
    const claim = `${'a'.repeat(238)}.-b${'c'.repeat(20)}`;
    assert.equal(addressClaimName(claim, 'f-ipv4'), `${'a'.repeat(238)}-${hash12(claim, 'f-ipv4')}`);
  });

  it('hash a name that is no DNS-1123 subdomain, such as a class with upper case', () => {
    assert.equal(addressClaimName('web-0', 'c-Public'), `web-0-${hash12('web-0', 'c-Public')}`);
  });
});
