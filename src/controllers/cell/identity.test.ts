import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdentityHolder, resolveIdentity } from './identity.ts';

describe('resolveIdentity', () => {
  it('takes the one delivered ServingLocation, with or without a matching configured name', () => {
    assert.deepEqual(resolveIdentity(['us-central-1']), {
      resolved: true,
      location: 'us-central-1',
      source: 'Delivered',
    });
    assert.deepEqual(resolveIdentity(['us-central-1'], 'us-central-1'), {
      resolved: true,
      location: 'us-central-1',
      source: 'Delivered',
    });
  });

  it('lets the delivered name win over a different configured one and reports the mismatch', () => {
    assert.deepEqual(resolveIdentity(['us-central-1'], 'fra-1'), {
      resolved: true,
      location: 'us-central-1',
      source: 'Delivered',
      mismatch: 'fra-1',
    });
  });

  it('falls back to the configured name when none or several are delivered', () => {
    assert.deepEqual(resolveIdentity([], 'fra-1'), {
      resolved: true,
      location: 'fra-1',
      source: 'Configured',
    });
    assert.deepEqual(resolveIdentity(['a', 'b'], 'fra-1'), {
      resolved: true,
      location: 'fra-1',
      source: 'Configured',
    });
  });

  it('is unresolved without a configured name when none or several are delivered', () => {
    const ambiguous = resolveIdentity(['a', 'b']);
    assert.equal(ambiguous.resolved, false);
    assert.equal(!ambiguous.resolved && ambiguous.reason, 'AmbiguousLocationIdentity');
    assert.match(!ambiguous.resolved ? ambiguous.message : '', /^2 ServingLocations have been delivered/);
    const none = resolveIdentity([]);
    assert.equal(!none.resolved && none.reason, 'NoLocationIdentity');
    assert.match(!none.resolved ? none.message : '', /topology\.datum\.net\/location/);
  });
});

describe('IdentityHolder', () => {
  it('tells its listeners only when the identity changes', () => {
    const holder = new IdentityHolder();
    let told = 0;
    holder.onChange(() => told++);
    assert.equal(holder.current(), undefined);
    assert.equal(holder.replace(resolveIdentity(['a'])), true);
    assert.equal(holder.replace(resolveIdentity(['a'])), false);
    assert.equal(holder.location(), 'a');
    assert.equal(holder.replace(resolveIdentity(['a', 'b'])), true);
    assert.equal(holder.location(), undefined);
    assert.equal(told, 2);
  });
});
