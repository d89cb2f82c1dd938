import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkContextName } from './network-context.ts';

describe('network context names', () => {
  it('join network and location: vpc in us-central-1 is vpc-us-central-1', () => {
    assert.equal(networkContextName('vpc', 'us-central-1'), 'vpc-us-central-1');
  });

  it('let two pairs derive one name, which the presence controller refuses to share', () => {
    assert.equal(networkContextName('a-b', 'c'), networkContextName('a', 'b-c'));
  });
});
