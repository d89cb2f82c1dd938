/**
 * Response negotiation: which of the forms this server writes — the object as JSON, a
 * meta.k8s.io Table, or PartialObjectMetadata — an Accept header asks for.
 *
 * Guarantees: the header is parsed into media ranges and tried by preference (higher `q`
 * first, then concrete types before wildcards, then the order written), as the real server's
 * goautoneg ordering does; the first range this server can answer wins. So kubectl's
 * `…;as=Table;v=v1;g=meta.k8s.io,…;as=Table;v=v1beta1;g=meta.k8s.io,application/json` gets a
 * Table when the resource has columns and JSON otherwise, and client-node's
 * `application/json` plus any type at q=0.8 gets JSON. `application/vnd.kubernetes.protobuf` counts as a
 * wish for JSON being fine (typed clients list it first and accept the JSON answer); it never
 * yields a Table, as the real server allows Tables only in JSON or YAML. A missing or blank
 * header means JSON. Nothing answerable (e.g. `application/yaml` alone) is a 406.
 * Caveat: `q=0` ranges are tried like any other, as the real server does.
 */
import { notAcceptable } from '../errors.ts';

export type ResponseFormat = 'json' | 'table' | 'partial-metadata';

/** The media types a 406 names: what this server accepts in Accept (it writes JSON for both). */
const ACCEPTED_MEDIA_TYPES = ['application/json', 'application/vnd.kubernetes.protobuf'];

const META_GROUP = 'meta.k8s.io';
const TABLE_VERSIONS = new Set(['v1', 'v1beta1']);
const PARTIAL_METADATA_KINDS = new Set(['PartialObjectMetadata', 'PartialObjectMetadataList']);

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
}

/**
 * The answers given so far, by header, without and with a table available: clients send the
 * same few headers on every request. At most `ANSWERED_HEADERS` each, then it starts over.
 */
const answeredWithoutTables = new Map<string, ResponseFormat>();
const answeredWithTables = new Map<string, ResponseFormat>();
const ANSWERED_HEADERS = 256;

export function negotiate(accept: string | undefined, options: { tableAvailable: boolean }): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  const known = options.tableAvailable ? answeredWithTables : answeredWithoutTables;
  let format = known.get(accept);
  if (format === undefined) {
    format = firstAnswerable(accept, options.tableAvailable);
    if (known.size >= ANSWERED_HEADERS) known.clear();
    known.set(accept, format);
  }
  return format;
}

function firstAnswerable(accept: string, tableAvailable: boolean): ResponseFormat {
  for (const range of parseAccept(accept)) {
    const format = formatFor(range, tableAvailable);
    if (format) return format;
  }
  throw notAcceptable(ACCEPTED_MEDIA_TYPES);
}

function formatFor(range: MediaRange, tableAvailable: boolean): ResponseFormat | undefined {
  const { type, subtype, params } = range;
  const json =
    (type === 'application' && (subtype === 'json' || subtype === '*')) || (type === '*' && subtype === '*');
  const protobuf = type === 'application' && subtype === 'vnd.kubernetes.protobuf';
  if (!json && !protobuf) return undefined;

  const as = params.get('as');
  const group = params.get('g');
  const version = params.get('v');
  if (as === undefined && group === undefined && version === undefined) return 'json';
  if (group !== META_GROUP) return undefined;
  if (as === 'Table' && json && tableAvailable && TABLE_VERSIONS.has(version ?? '')) return 'table';
  if (as !== undefined && PARTIAL_METADATA_KINDS.has(as) && version === 'v1') return 'partial-metadata';
  return undefined;
}

/** The header's media ranges, most preferred first. Malformed ranges are skipped. */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const clause of header.split(',')) {
    const [range = '', ...paramTexts] = clause.split(';').map((part) => part.trim());
    const parts = range === '*' ? ['*', '*'] : range.toLowerCase().split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) continue;
    const [type, subtype] = parts;
    const params = new Map<string, string>();
    let q = 1;
    for (const text of paramTexts) {
      const eq = text.indexOf('=');
      if (eq < 0) continue;
      const name = text.slice(0, eq).trim();
      const value = text.slice(eq + 1).trim();
      if (name === 'q') q = Number.parseFloat(value) || 0;
      else params.set(name, value);
    }
    ranges.push({ type, subtype, params, q });
  }
  return ranges.sort((a, b) => b.q - a.q || wildcardRank(a) - wildcardRank(b));
}

function wildcardRank(range: MediaRange): number {
  return (range.type === '*' ? 2 : 0) + (range.subtype === '*' ? 1 : 0);
}
