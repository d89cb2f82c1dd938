/**
 * Controller keys made of named string parts, written as a JSON array of the parts in order
 * (the presence key, the project-object key, the interface-copy key).
 *
 * Guarantees: `fromString(toString(key))` equals `key` for every string in every part, and two
 * different keys never share a string (JSON escapes every name); `fromString` refuses anything
 * but a JSON array of exactly that many strings, with an error naming the key and its parts.
 */

export interface KeyCodec<K> {
  toString: (key: K) => string;
  fromString: (value: string) => K;
}

/** The key type of a codec: `type PresenceKey = KeyOf<typeof presenceKey>`. */
export type KeyOf<C> = C extends KeyCodec<infer K> ? K : never;

/**
 * The codec of keys with string fields `fields`, in that order: `tupleKey('a presence key',
 * ['hubNamespace', 'network', 'location'])`. An error names the fields in words
 * (`hubNamespace` → "hub namespace").
 */
export function tupleKey<const F extends readonly string[]>(
  what: string,
  fields: F,
): KeyCodec<Record<F[number], string>> {
  type K = Record<F[number], string>;
  const words = fields.map((field) => field.replace(/[A-Z]/g, (upper) => ` ${upper.toLowerCase()}`));
  const described = words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words[0];
  return {
    toString: (key: K) => JSON.stringify(fields.map((field: F[number]) => key[field])),
    fromString(value) {
      const parsed: unknown = JSON.parse(value);
      if (
        !Array.isArray(parsed) ||
        parsed.length !== fields.length ||
        !parsed.every((part): part is string => typeof part === 'string')
      )
        throw new Error(`${what} is a JSON array of ${described}, got ${value}`);
      return Object.fromEntries(fields.map((field, i) => [field, parsed[i]])) as K;
    },
  };
}
