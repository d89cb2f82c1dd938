import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { provisionedPoolName } from './ip-pool.ts';
import { networkLocationScope, networkScope } from './scope.ts';

describe('provisioned pool names', () => {
  it('join the class and the scope names in scopeRoles order', () => {
    assert.equal(
      provisionedPoolName('datum-network-v6', ['network'], networkScope('vpc')),
      'datum-network-v6-vpc',
    );
    assert.equal(
      provisionedPoolName(
        'datum-subnet-v6',
        ['network', 'location'],
        networkLocationScope('vpc', 'us-central-1'),
      ),
      'datum-subnet-v6-vpc-us-central-1',
    );
  });

  it('fall back to the class and a hash of role=name pairs when the readable name is taken by another scope', () => {
    const name = provisionedPoolName('datum-network-v6', ['network'], networkScope('vpc'), () => true);
    assert.equal(name, 'datum-network-v6-f323f5dea17a');
  });

  it('fall back when the readable name is no DNS-1123 subdomain or too long', () => {
    assert.equal(
      provisionedPoolName('datum-network-v6', ['network'], networkScope('VPC')),
      provisionedPoolName('datum-network-v6', ['network'], networkScope('VPC'), () => true),
    );
    const long = provisionedPoolName('datum-network-v6', ['network'], networkScope('a'.repeat(240)));
    assert.match(long, /^datum-network-v6-[0-9a-f]{12}$/);
  });
});
