/**
 * Duplicate JSON fields: Kubernetes' strict decoding reports a field given twice in one object
 * (`duplicate field "metadata.name"`) where JSON.parse silently keeps the last.
 *
 * Guarantees: `duplicateFields` returns every duplicated field of a JSON text, as a dotted path
 * (array elements as `[i]`), in the order they appear; it walks the text without recursion and
 * returns nothing for text that is not JSON (decoding reports that).
 */

interface Frame {
  array: boolean;
  path: string;
  keys: Set<string>;
  index: number;
  /** The key just read, awaiting its value. */
  key?: string;
}

function childPath(frame: Frame): string {
  if (frame.array) return `${frame.path}[${frame.index}]`;
  return frame.path ? `${frame.path}.${frame.key}` : frame.key!;
}

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '{' || c === '[') {
      const path = top ? childPath(top) : '';
      stack.push({ array: c === '[', path, keys: new Set(), index: 0 });
      i += 1;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i += 1;
    } else if (c === ',') {
      if (top?.array) top.index += 1;
      if (top) top.key = undefined;
      i += 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (top && !top.array && top.key === undefined) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return found;
        }
        if (top.keys.has(key)) found.push(top.path ? `${top.path}.${key}` : key);
        top.keys.add(key);
        top.key = key;
      }
      i = j + 1;
    } else {
      i += 1;
    }
  }
  return found;
}
