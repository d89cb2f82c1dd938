/**
 * Duplicate JSON fields: Kubernetes' strict decoding reports a field given twice in one object
 * (`duplicate field "metadata.name"`) where JSON.parse silently keeps the last.
 *
 * Guarantees: `duplicateFields` returns every duplicated field of a JSON text, as a dotted path
 * (array elements as `[i]`), in the order they appear; it walks the text without recursion and
 * returns nothing for text that is not JSON (decoding reports that).
 * It runs on every JSON body written, so it skips strings with `indexOf` rather than character by
 * character, reads a key without escapes as it is written, and spells a path only for a
 * duplicate it reports.
 */

interface Frame {
  array: boolean;
  /** The enclosing frame, and this one's key or index in it; none at the top. */
  parent?: Frame;
  at?: string | number;
  keys?: Set<string>;
  index: number;
  /** The key just read, awaiting its value. */
  key?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function pathOf(frame: Frame): string {
  if (!frame.parent) return '';
  const parentPath = pathOf(frame.parent);
  if (frame.parent.array) return `${parentPath}[${frame.at as number}]`;
  return parentPath ? `${parentPath}.${frame.at as string}` : (frame.at as string);
}

/** The index of the quote closing the string that opens at `start`, or -1 when there is none. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 > start && text.charCodeAt(quote - backslashes - 1) === BACKSLASH)
      backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The key a string token spells, or undefined when it is not a valid JSON string. */
function keyOf(text: string, start: number, end: number): string | undefined {
  let plain = true;
  for (let k = start + 1; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === BACKSLASH || c < 0x20) {
      plain = false;
      break;
    }
  }
  if (plain) return text.slice(start + 1, end);
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  let top: Frame | undefined;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return found;
      if (top && !top.array && top.key === undefined) {
        const key = keyOf(text, i, end);
        if (key === undefined) return found;
        const keys = (top.keys ??= new Set());
        if (keys.has(key)) {
          const path = pathOf(top);
          found.push(path ? `${path}.${key}` : key);
        }
        keys.add(key);
        top.key = key;
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const at = top ? (top.array ? top.index : top.key) : undefined;
      top = { array: c === OPEN_ARRAY, parent: top, at, index: 0 };
      i += 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      top = top?.parent;
      i += 1;
    } else if (c === COMMA) {
      if (top?.array) top.index += 1;
      if (top) top.key = undefined;
      i += 1;
    } else {
      i += 1;
    }
  }
  return found;
}
