/**
 * CIDR math on bigint: parsing and canonical formatting of IPv4 and IPv6 prefixes, containment,
 * overlap, and the lowest free aligned block of a length inside a prefix.
 *
 * Guarantees:
 * - `parseCidr` accepts exactly `<address>/<length>`: a dotted quad of decimal octets without
 *   leading zeros, or an IPv6 address in any RFC 4291 text form (hex groups, one `::`, an
 *   embedded dotted quad in the last 32 bits), and a decimal length within the family's width.
 *   It keeps the address as written, host bits included; `networkOf` clears them.
 * - `formatCidr` writes the canonical form of apis.md §0: a dotted quad, or RFC 5952 (lower
 *   case, no leading zeros, the longest run of two or more zero groups compressed, the first on a
 *   tie), so `formatCidr(parseCidr(s))` equals `s` exactly when `s` is canonical.
 * - `lowestFreeBlock` is a function of its arguments alone: the same occupancy always yields the
 *   same block, found in O(k log k) for k occupied prefixes, however large the prefix is.
 * Prefixes of different families never contain or overlap one another.
 */

export type Family = 'IPv4' | 'IPv6';

/** A prefix: `prefixLength` leading bits of `address` (a 32- or 128-bit unsigned value). */
export interface Cidr {
  family: Family;
  address: bigint;
  prefixLength: number;
}

export function bitsOf(family: Family): 32 | 128 {
  return family === 'IPv4' ? 32 : 128;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIPv4(text: string): bigint | undefined {
  const octets = text.split('.');
  if (octets.length !== 4) return undefined;
  let value = 0n;
  for (const octet of octets) {
    if (!DECIMAL.test(octet) || Number(octet) > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

/** The 16-bit groups of one side of `::`; an embedded dotted quad counts as two groups. */
function parseGroups(text: string, allowIPv4Tail: boolean): bigint[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: bigint[] = [];
  for (const [index, part] of parts.entries()) {
    if (allowIPv4Tail && index === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (HEX_GROUP.test(part)) {
      groups.push(BigInt(`0x${part}`));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  let groups: bigint[];
  if (halves.length === 1) {
    const all = parseGroups(text, true);
    if (!all || all.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseGroups(halves[0], false);
    const tail = parseGroups(halves[1], true);
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<bigint>(8 - head.length - tail.length).fill(0n), ...tail];
  }
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

export function parseAddress(text: string): { family: Family; address: bigint } | undefined {
  if (text.includes(':')) {
    const address = parseIPv6(text);
    return address === undefined ? undefined : { family: 'IPv6', address };
  }
  const address = parseIPv4(text);
  return address === undefined ? undefined : { family: 'IPv4', address };
}

/** `<address>/<length>` as written (host bits kept), or undefined when it is no CIDR. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const parsed = parseAddress(text.slice(0, slash));
  const length = text.slice(slash + 1);
  if (!parsed || !DECIMAL.test(length) || Number(length) > bitsOf(parsed.family)) return undefined;
  return { ...parsed, prefixLength: Number(length) };
}

export function formatAddress(family: Family, address: bigint): string {
  if (family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((shift) => String((address >> shift) & 0xffn)).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => (address >> shift) & 0xffffn);
  let runStart = -1;
  let runLength = 0;
  for (let start = 0; start < 8; start++) {
    let end = start;
    while (end < 8 && groups[end] === 0n) end++;
    if (end - start > runLength) [runStart, runLength] = [start, end - start];
  }
  const hex = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (runLength < 2) return hex(0, 8);
  return `${hex(0, runStart)}::${hex(runStart + runLength, 8)}`;
}

export function formatCidr(cidr: Cidr): string {
  return `${formatAddress(cidr.family, cidr.address)}/${cidr.prefixLength}`;
}

function hostMask(cidr: Cidr): bigint {
  return (1n << BigInt(bitsOf(cidr.family) - cidr.prefixLength)) - 1n;
}

/** The first address of the prefix. */
export function firstAddress(cidr: Cidr): bigint {
  return cidr.address & ~hostMask(cidr);
}

/** The last address of the prefix. */
function lastAddress(cidr: Cidr): bigint {
  return firstAddress(cidr) | hostMask(cidr);
}

/** The prefix with its host bits cleared. */
export function networkOf(cidr: Cidr): Cidr {
  return { ...cidr, address: firstAddress(cidr) };
}

export function hasHostBits(cidr: Cidr): boolean {
  return (cidr.address & hostMask(cidr)) !== 0n;
}

/** True when every address of `inner` is in `outer`. */
export function contains(outer: Cidr, inner: Cidr): boolean {
  return (
    outer.family === inner.family &&
    outer.prefixLength <= inner.prefixLength &&
    firstAddress(outer) === (firstAddress(inner) & ~hostMask(outer))
  );
}

/** True when the two prefixes share an address (for prefixes: one contains the other). */
export function overlaps(a: Cidr, b: Cidr): boolean {
  return contains(a, b) || contains(b, a);
}

/**
 * The first of the aligned blocks of length `prefixLength` inside `within`, in ascending address
 * order, that overlaps none of `occupied`; undefined when there is none, or when `prefixLength`
 * is shorter than `within`'s or longer than the family's width.
 *
 * Worked example: within `10.128.0.0/30`, length 32, occupied `10.128.0.0/32` (a reserved block)
 * and `10.128.0.1/32`: the candidate `.0` meets the first occupied prefix and moves past it to
 * `.1`, meets the second and moves to `.2`, which nothing occupies: `10.128.0.2/32`.
 */
export function lowestFreeBlock(
  within: Cidr,
  prefixLength: number,
  occupied: readonly Cidr[],
): Cidr | undefined {
  const bits = bitsOf(within.family);
  if (prefixLength < within.prefixLength || prefixLength > bits) return undefined;
  const size = 1n << BigInt(bits - prefixLength);
  const end = lastAddress(within);
  const intervals = occupied
    .filter((cidr) => overlaps(cidr, within))
    .map((cidr) => [firstAddress(cidr), lastAddress(cidr)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let candidate = firstAddress(within);
  for (const [first, last] of intervals) {
    if (last < candidate) continue;
    if (first > candidate + size - 1n) break;
    candidate = (last / size + 1n) * size;
  }
  if (candidate + size - 1n > end) return undefined;
  return { family: within.family, address: candidate, prefixLength };
}
