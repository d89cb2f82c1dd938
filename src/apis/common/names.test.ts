import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDnsSubdomain, shortHash } from './names.ts';

describe('names', () => {
  it('accept DNS-1123 subdomains up to 253 characters', () => {
    assert.ok(isDnsSubdomain('vpc-us-central-1-ipv6'));
    assert.ok(isDnsSubdomain('a.b-c.d'));
    assert.ok(isDnsSubdomain('a'.repeat(253)));
  });

  it('refuse upper case, edges other than alphanumerics, empty labels and 254 characters', () => {
    for (const name of ['Vpc', '-a', 'a-', 'a..b', '.a', 'a_b', '', 'a'.repeat(254)]) {
      assert.equal(isDnsSubdomain(name), false, name);
    }
  });

  it('hash parts joined by NUL to 12 hex characters', () => {
    assert.equal(shortHash(['a', 'b']), '59b271ae1bbc');
    assert.notEqual(shortHash(['a', 'b']), shortHash(['ab']));
    assert.match(shortHash(['x']), /^[0-9a-f]{12}$/);
  });
});
