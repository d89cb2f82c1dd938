import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePrefix } from './prefix.ts';

describe('parsePrefix', () => {
  it('reads canonical IPv6 prefixes', () => {
    assert.deepEqual(parsePrefix('fd20::/64'), { startAddress: 'fd20::', prefixLength: 64 });
    assert.deepEqual(parsePrefix('fd20:0:1::/48'), { startAddress: 'fd20:0:1::', prefixLength: 48 });
    assert.deepEqual(parsePrefix('fd20:0:0:8000::/49'), {
      startAddress: 'fd20:0:0:8000::',
      prefixLength: 49,
    });
  });

  it('clears host bits and writes the address as RFC 5952 does', () => {
    assert.deepEqual(parsePrefix('FD20:0000:0000:8000::1/49'), {
      startAddress: 'fd20:0:0:8000::',
      prefixLength: 49,
    });
    assert.deepEqual(parsePrefix('fd20::1:0:0/96'), { startAddress: 'fd20::1:0:0', prefixLength: 96 });
    // the first of two equal zero runs is compressed; a single zero group never is
    assert.deepEqual(parsePrefix('1:0:0:2:0:0:3:4/128'), { startAddress: '1::2:0:0:3:4', prefixLength: 128 });
    assert.deepEqual(parsePrefix('1:0:2:3:4:5:6:7/128'), {
      startAddress: '1:0:2:3:4:5:6:7',
      prefixLength: 128,
    });
    assert.deepEqual(parsePrefix('::/0'), { startAddress: '::', prefixLength: 0 });
  });

  it('reads IPv4 prefixes', () => {
    assert.deepEqual(parsePrefix('10.128.0.1/32'), { startAddress: '10.128.0.1', prefixLength: 32 });
    assert.deepEqual(parsePrefix('10.128.3.7/16'), { startAddress: '10.128.0.0', prefixLength: 16 });
  });

  it('refuses what is not a prefix, naming it', () => {
    for (const text of [
      '',
      'fd20::',
      'fd20::/129',
      '10.0.0.0/33',
      'fd20::/x',
      'nope/8',
      'fd20::/64/1',
      '10.0.0.0/-1',
    ]) {
      assert.throws(
        () => parsePrefix(text),
        new RegExp(`"${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not an address prefix`),
      );
    }
  });
});
