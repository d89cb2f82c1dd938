import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FORMATS } from './formats.ts';

describe('string formats', () => {
  it('accepts RFC 3339 date-times with fractions, offsets and lower-case letters', () => {
    for (const value of ['2024-02-29T10:00:00Z', '2024-01-01t23:59:59.123z', '2024-01-01T00:00:00+05:30']) {
      assert.equal(FORMATS['date-time'](value), true, value);
    }
  });

  it('refuses date-times without a zone, with an impossible day or out-of-range clock', () => {
    for (const value of [
      '2024-01-01T10:00:00',
      '2023-02-29T10:00:00Z',
      '2024-01-01T24:00:00Z',
      'yesterday',
    ]) {
      assert.equal(FORMATS['date-time'](value), false, value);
    }
  });

  it('checks dates, base64, UUIDs, addresses and CIDRs', () => {
    assert.equal(FORMATS.date('2024-12-31'), true);
    assert.equal(FORMATS.date('2024-13-01'), false);
    assert.equal(FORMATS.byte('aGVsbG8='), true);
    assert.equal(FORMATS.byte('not base64!'), false);
    assert.equal(FORMATS.uuid('0E3A6C2D-1D7B-4C4B-9A8E-2D1F0E9C8B7A'), true);
    assert.equal(FORMATS.uuid('0e3a6c2d'), false);
    assert.equal(FORMATS.ipv4('10.128.0.1'), true);
    assert.equal(FORMATS.ipv4('fd20::1'), false);
    assert.equal(FORMATS.ipv6('fd20::1'), true);
    assert.equal(FORMATS.cidr('fd20::/48'), true);
    assert.equal(FORMATS.cidr('10.0.0.0/33'), false);
    assert.equal(FORMATS.cidr('10.0.0.0'), false);
  });

  it('keeps accepting and refusing the same date-times once more than a thousand have been accepted', () => {
    const dateTime = FORMATS['date-time'];
    for (let second = 0; second < 1500; second++) {
      const value = new Date(Date.UTC(2026, 11, 5) + second * 1000).toISOString();
      assert.equal(dateTime(value), true, value);
      assert.equal(dateTime(value), true, `${value} again`);
    }
    assert.equal(dateTime('2026-12-05T00:00:00Z'), true);
    assert.equal(dateTime('2026-12-05T00:00:00'), false);
    assert.equal(dateTime('2026-02-30T00:00:00Z'), false);
  });
});
