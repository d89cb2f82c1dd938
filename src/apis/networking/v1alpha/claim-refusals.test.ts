import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimRefusalMessages, gatewayMessages, identityMessages, readyMessages } from './claim-refusals.ts';

describe('claim refusal messages', () => {
  it('say where the network has not arrived', () => {
    assert.equal(
      claimRefusalMessages.networkNotAvailable('vpc', 'us-central-1', 'vpc-us-central-1', 'ns-u'),
      'Network "vpc" has not reached location "us-central-1": no network context "vpc-us-central-1" exists in namespace "ns-u"',
    );
    assert.equal(
      claimRefusalMessages.familyNotCarried('vpc', 'us-central-1', 'IPv4'),
      'Network "vpc" in location "us-central-1" does not carry address family IPv4',
    );
  });

  it('word an adoption mismatch with both sides', () => {
    assert.equal(
      claimRefusalMessages.reclaimPolicyMismatch('web-0', 'Retain', 'Delete'),
      'Network interface "web-0" holds addresses allocated with reclaimPolicy Retain and cannot be bound by a claim requesting Delete',
    );
  });

  it('name the subnet and family a gateway cannot come from', () => {
    assert.equal(
      gatewayMessages.noAddressAfterStart(
        'vpc-us-central-1-ipv6',
        'IPv6',
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
        128,
      ),
      'Subnet "vpc-us-central-1-ipv6" addresses family IPv6 in this location but ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128 has no address after its start, so the interface has no gateway',
    );
  });

  it('count the ServingLocations that make an identity ambiguous', () => {
    assert.equal(
      identityMessages.ambiguous(2),
      '2 ServingLocations have been delivered to this cell; exactly one cluster label topology.datum.net/location is expected and no location is configured to fall back to',
    );
    assert.equal(readyMessages.waitingFor('Prepared'), 'Waiting for Prepared');
  });
});
