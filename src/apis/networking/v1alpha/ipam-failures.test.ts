import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipamFailureMessages, requestDescription } from './ipam-failures.ts';

describe('IPAM failure messages', () => {
  it('describe a request by class when it names one, else by family', () => {
    assert.equal(requestDescription({ family: 'IPv4' }), 'an IPv4 address');
    assert.equal(requestDescription({ family: 'IPv6' }), 'an IPv6 address');
    assert.equal(
      requestDescription({ family: 'IPv4', className: 'datum-public-v4' }),
      'an address of class "datum-public-v4"',
    );
  });

  it('name the exhausted pool when IPAM named it', () => {
    assert.equal(
      ipamFailureMessages.exhaustedPool('an IPv6 address', 'datum-endpoint-v6-vpc-us-central-1'),
      'No address is left for an IPv6 address: IPPool "datum-endpoint-v6-vpc-us-central-1" is exhausted',
    );
    assert.equal(
      ipamFailureMessages.exhausted('an IPv4 address', 'insufficient storage'),
      'No address is left for an IPv4 address: insufficient storage',
    );
  });

  it('word the range refusals of holdScopeRange', () => {
    assert.equal(
      ipamFailureMessages.rangeNamespaceNotFound('project-alpha', 'default'),
      'Project "project-alpha" has no namespace "default" in its control plane, so no address space can be allocated for it',
    );
    assert.equal(
      ipamFailureMessages.rangeUnsupported('network-u1', 'this network'),
      'IPAM did not keep the request for a range on claim "network-u1", so it cannot report the address space this network is drawn from',
    );
    assert.equal(
      ipamFailureMessages.noRangeAllocated('this location', 'Pending'),
      'IPAM allocated no address space for this location (phase "Pending")',
    );
  });
});
