import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkContextName } from './network-context.ts';
import { ipv6SubnetName } from './subnet.ts';

describe('subnet names', () => {
  it('name the IPv6 subnet of a context <context>-ipv6', () => {
    assert.equal(ipv6SubnetName(networkContextName('vpc', 'us-central-1')), 'vpc-us-central-1-ipv6');
  });
});
