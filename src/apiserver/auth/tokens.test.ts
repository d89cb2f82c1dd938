import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHENTICATED_GROUP, INVALID_TOKEN, TokenAuthenticator } from './tokens.ts';

const admin = { name: 'admin', groups: ['system:masters'] };

describe('token authenticator', () => {
  it('mints a 32-byte base64url token that authenticates as its identity plus system:authenticated', () => {
    const tokens = new TokenAuthenticator();
    const token = tokens.mint(admin);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    assert.deepEqual(tokens.authenticate(`Bearer ${token}`), {
      name: 'admin',
      groups: ['system:masters', AUTHENTICATED_GROUP],
    });
  });

  it('mints a different token each time', () => {
    const tokens = new TokenAuthenticator();
    assert.notEqual(tokens.mint(admin), tokens.mint(admin));
  });

  it('reads the scheme case-insensitively and ignores surrounding whitespace, as the Kubernetes API server does', () => {
    const tokens = new TokenAuthenticator();
    const token = tokens.mint(admin);
    assert.equal(tokens.authenticate(`bearer ${token}`)?.name, 'admin');
    assert.equal(tokens.authenticate(`  BEARER ${token}  `)?.name, 'admin');
  });

  it('rejects a missing header, another scheme, an empty token and a token it never issued', () => {
    const tokens = new TokenAuthenticator();
    const token = tokens.mint(admin);
    assert.equal(tokens.authenticate(undefined), undefined);
    assert.equal(tokens.authenticate(''), undefined);
    assert.equal(tokens.authenticate(`Basic ${token}`), undefined);
    assert.equal(tokens.authenticate(token), undefined);
    assert.equal(tokens.authenticate('Bearer '), undefined);
    assert.equal(tokens.authenticate(`Bearer ${token}x`), undefined);
    assert.equal(tokens.authenticate(`Bearer ${new TokenAuthenticator().mint(admin)}`), undefined);
  });

  it('authenticates a registered token and does not add system:authenticated twice', () => {
    const tokens = new TokenAuthenticator();
    tokens.register('reloaded-token', { name: 'cell-a', groups: [AUTHENTICATED_GROUP, 'cells'] });
    assert.deepEqual(tokens.authenticate('Bearer reloaded-token'), {
      name: 'cell-a',
      groups: [AUTHENTICATED_GROUP, 'cells'],
    });
  });

  it('refuses to register an empty token or one with whitespace, which no header could carry', () => {
    const tokens = new TokenAuthenticator();
    assert.throws(() => tokens.register('', admin), { message: INVALID_TOKEN });
    assert.throws(() => tokens.register('two parts', admin), { message: INVALID_TOKEN });
  });

  it('stops authenticating a revoked token and leaves the others alone', () => {
    const tokens = new TokenAuthenticator();
    const revoked = tokens.mint(admin);
    const kept = tokens.mint({ name: 'viewer', groups: [] });
    assert.equal(tokens.revoke(revoked), true);
    assert.equal(tokens.authenticate(`Bearer ${revoked}`), undefined);
    assert.equal(tokens.authenticate(`Bearer ${kept}`)?.name, 'viewer');
    assert.equal(tokens.revoke(revoked), false);
  });

  it('hands out identities the caller may change without changing what the next request sees', () => {
    const tokens = new TokenAuthenticator();
    const identity = { name: 'admin', groups: ['system:masters'] };
    const token = tokens.mint(identity);
    identity.groups.push('mutated-after-mint');
    tokens.authenticate(`Bearer ${token}`)?.groups.push('mutated-after-authenticate');
    assert.deepEqual(tokens.authenticate(`Bearer ${token}`)?.groups, ['system:masters', AUTHENTICATED_GROUP]);
  });
});
