/**
 * Reading a CIDR that IPAM handed out as the prefix a Subnet publishes: its network address and
 * its length.
 *
 * Guarantees: `parsePrefix` accepts an IPv4 or IPv6 address with a `/<bits>` length in range
 * and answers the network address (host bits cleared) in canonical form — dotted quad, or
 * RFC 5952 (lower case, the longest run of two or more zero groups compressed, the first on a
 * tie); anything else throws an Error naming the text.
 *
 * Example: `fd20:0:0:8000::1/49` → `{startAddress: 'fd20:0:0:8000::', prefixLength: 49}`.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface Prefix {
  startAddress: string;
  prefixLength: number;
}

export function parsePrefix(cidr: string): Prefix {
  const [address = '', bits = '', ...rest] = cidr.split('/');
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : undefined;
  const width = family === 4 ? 32 : 128;
  const prefixLength = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (family === undefined || rest.length > 0 || !(prefixLength >= 0 && prefixLength <= width)) {
    throw new Error(`"${cidr}" is not an address prefix (expected <address>/<length>)`);
  }
  const value = family === 4 ? ipv4Value(address) : ipv6Value(address);
  const hostBits = BigInt(width - prefixLength);
  const network = (value >> hostBits) << hostBits;
  return { startAddress: family === 4 ? formatIPv4(network) : formatIPv6(network), prefixLength };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6Value(address: string): bigint {
  let text = address;
  const embedded = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (embedded) {
    const v4 = ipv4Value(embedded[1]);
    text = `${text.slice(0, embedded.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].reduce(
    (value, group) => (value << 16n) | BigInt(parseInt(group, 16)),
    0n,
  );
}

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join('.');
}

function formatIPv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8;) {
    let end = start;
    while (end < 8 && groups[end] === 0) end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
