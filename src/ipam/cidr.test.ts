import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  contains,
  formatAddress,
  formatCidr,
  hasHostBits,
  lowestFreeBlock,
  networkOf,
  overlaps,
  parseAddress,
  parseCidr,
  type Cidr,
} from './cidr.ts';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  assert.ok(parsed, `${text} does not parse`);
  return parsed;
}

const canonical = (text: string) => formatCidr(cidr(text));

describe('CIDR parsing and formatting', () => {
  it('writes IPv4 prefixes as dotted quads', () => {
    assert.equal(canonical('10.128.0.0/16'), '10.128.0.0/16');
    assert.equal(canonical('0.0.0.0/0'), '0.0.0.0/0');
    assert.equal(canonical('255.255.255.255/32'), '255.255.255.255/32');
  });

  it('writes IPv6 prefixes in RFC 5952 form: lower case, no leading zeros, the longest zero run compressed', () => {
    assert.equal(canonical('FD20:0000:0000:0000:0000:0000:0000:0000/20'), 'fd20::/20');
    assert.equal(canonical('fd20:0:1:0:0:0:0:0/48'), 'fd20:0:1::/48');
    assert.equal(canonical('fd20::0001:0:0/96'), 'fd20::1:0:0/96');
    assert.equal(canonical('::/0'), '::/0');
    assert.equal(canonical('0:0:0:0:0:0:0:1/128'), '::1/128');
    assert.equal(canonical('1:0:0:0:0:0:0:0/16'), '1::/16');
  });

  it('compresses the first of two equally long zero runs, and never a single zero group', () => {
    assert.equal(formatAddress('IPv6', parseAddress('1:0:0:2:3:0:0:4')!.address), '1::2:3:0:0:4');
    assert.equal(formatAddress('IPv6', parseAddress('1:0:0:2:0:0:0:4')!.address), '1:0:0:2::4');
    assert.equal(formatAddress('IPv6', parseAddress('1:2:3:4:5:6:0:8')!.address), '1:2:3:4:5:6:0:8');
  });

  it('reads an embedded dotted quad in the last 32 bits of an IPv6 address', () => {
    assert.equal(formatAddress('IPv6', parseAddress('::ffff:10.0.0.1')!.address), '::ffff:a00:1');
    assert.equal(formatAddress('IPv6', parseAddress('0:0:0:0:0:ffff:1.2.3.4')!.address), '::ffff:102:304');
  });

  it('refuses what is no CIDR', () => {
    for (const text of [
      'fd20::',
      'fd20::/129',
      '10.0.0.0/33',
      '10.0.0/8',
      '10.0.0.256/32',
      '010.0.0.0/8',
      '10.0.0.0/08',
      '10.0.0.0/',
      '1::2::3/64',
      '1:2:3:4:5:6:7:8:9/64',
      '1:2:3:4:5:6:7/64',
      '12345::/16',
      ':1::/16',
      '1.2.3.4::/64',
      'fd20::/-1',
      '',
    ]) {
      assert.equal(parseCidr(text), undefined, text);
    }
  });

  it('keeps host bits as written, and clears them in the network', () => {
    const withHost = cidr('fd20::1/48');
    assert.ok(hasHostBits(withHost));
    assert.equal(formatCidr(withHost), 'fd20::1/48');
    assert.equal(formatCidr(networkOf(withHost)), 'fd20::/48');
    assert.ok(!hasHostBits(cidr('10.128.0.1/32')));
    assert.ok(hasHostBits(cidr('10.128.0.1/31')));
  });
});

describe('CIDR containment and overlap', () => {
  it('contains a prefix inside, itself, and nothing of the other family', () => {
    assert.ok(contains(cidr('fd20::/20'), cidr('fd20:0:1::/48')));
    assert.ok(contains(cidr('fd20::/48'), cidr('fd20::/48')));
    assert.ok(!contains(cidr('fd20::/48'), cidr('fd20::/20')));
    assert.ok(!contains(cidr('fd20::/20'), cidr('fd30::/48')));
    assert.ok(!contains(cidr('::/0'), cidr('10.0.0.0/8')));
  });

  it('overlaps when either contains the other', () => {
    assert.ok(overlaps(cidr('fd20:1::/32'), cidr('fd20::/20')));
    assert.ok(overlaps(cidr('fd20::/20'), cidr('fd20:1::/32')));
    assert.ok(!overlaps(cidr('10.128.0.0/16'), cidr('10.129.0.0/16')));
  });
});

describe('lowest free block', () => {
  const block = (within: string, length: number, occupied: string[]) => {
    const found = lowestFreeBlock(cidr(within), length, occupied.map(cidr));
    return found && formatCidr(found);
  };

  it('is the first aligned block of the pool when nothing is occupied', () => {
    assert.equal(block('fd20::/20', 48, []), 'fd20::/48');
    assert.equal(block('10.128.0.0/16', 32, []), '10.128.0.0/32');
  });

  it('skips the reserved leading block and every occupied block, in ascending order', () => {
    assert.equal(block('fd20::/64', 96, ['fd20::/96']), 'fd20::1:0:0/96');
    assert.equal(block('fd20::/64', 96, ['fd20::/96', 'fd20::1:0:0/96', 'fd20::3:0:0/96']), 'fd20::2:0:0/96');
    assert.equal(block('10.128.0.0/30', 32, ['10.128.0.1/32', '10.128.0.0/32']), '10.128.0.2/32');
  });

  it('steps over an occupied prefix larger than the block, and a smaller one inside a candidate', () => {
    assert.equal(block('fd20::/20', 48, ['fd20::/40']), 'fd20:0:100::/48');
    assert.equal(block('fd20::/64', 96, ['fd20::/96', 'fd20::1:0:5/128']), 'fd20::2:0:0/96');
  });

  it('ignores occupied prefixes outside the pool', () => {
    assert.equal(block('fd20::/64', 96, ['fd21::/16', '10.0.0.0/8']), 'fd20::/96');
  });

  it('finds nothing when the pool is full, or the length does not fit the pool', () => {
    assert.equal(block('10.128.0.0/30', 32, ['10.128.0.0/31', '10.128.0.2/32', '10.128.0.3/32']), undefined);
    assert.equal(block('fd20::/48', 32, []), undefined);
    assert.equal(block('10.0.0.0/8', 33, []), undefined);
  });

  it('is the same block for the same occupancy, whatever its order', () => {
    const occupied = ['fd20::/96', 'fd20::2:0:0/96', 'fd20::1:0:0/96', 'fd20::4:0:0/96'];
    assert.equal(block('fd20::/64', 96, occupied), 'fd20::3:0:0/96');
    assert.equal(block('fd20::/64', 96, [...occupied].reverse()), 'fd20::3:0:0/96');
  });

  it('gives a /120 the lowest free /120 after the reserved /96', () => {
    assert.equal(block('fd20::/64', 120, ['fd20::/96']), 'fd20::1:0:0/120');
  });
});
