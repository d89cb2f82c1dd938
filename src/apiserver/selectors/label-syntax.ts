/**
 * Label syntax: what a label key and a label value may be, worded as
 * k8s.io/apimachinery/pkg/util/validation words it (IsQualifiedName, IsValidLabelValue).
 *
 * Guarantees: each function returns every problem the Go function reports, in its order and
 * words, and an empty list for a valid key or value. Callers join them with `; `.
 * Caveat: lengths are counted in UTF-8 bytes, as Go's len() does.
 */

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const NAME_PART_ERROR = regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]',
  ['MyName', 'my.name', '123-abc'],
);
const QUALIFIED_NAME_ERROR = `a qualified name ${NAME_PART_ERROR} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const DNS_SUBDOMAIN_ERROR = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*',
  ['example.com'],
);
const LABEL_VALUE_ERROR = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?',
  ['MyValue', 'my_value', '12345'],
);
const EMPTY_ERROR = 'must be non-empty';

/** Go's RegexError, including its doubled space before each ` or`. */
function regexError(message: string, regex: string, examples: string[]): string {
  const quoted = examples.map((example) => `'${example}', `).join(' or ');
  return `${message} (e.g. ${quoted}regex used for validation is '${regex}')`;
}

function maxLengthError(length: number): string {
  return `must be no more than ${length} characters`;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Keys found valid, so that the few keys every object carries (labels, annotations, finalizers)
 * are not checked again on every write; forgotten all at once past MAX_VALID_KEYS.
 */
const validKeys = new Set<string>();
const MAX_VALID_KEYS = 10_000;

/** A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export function labelKeyErrors(key: string): string[] {
  if (validKeys.has(key)) return [];
  const errors = keyErrors(key);
  if (errors.length === 0) {
    if (validKeys.size >= MAX_VALID_KEYS) validKeys.clear();
    validKeys.add(key);
  }
  return errors;
}

function keyErrors(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return [QUALIFIED_NAME_ERROR];
  const errors: string[] = [];
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errors.push(`prefix part ${EMPTY_ERROR}`);
    else {
      if (byteLength(prefix) > 253) errors.push(`prefix part ${maxLengthError(253)}`);
      if (!DNS_SUBDOMAIN.test(prefix)) errors.push(`prefix part ${DNS_SUBDOMAIN_ERROR}`);
    }
  }
  if (name === '') errors.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > 63) errors.push(`name part ${maxLengthError(63)}`);
  if (!NAME_PART.test(name)) errors.push(`name part ${NAME_PART_ERROR}`);
  return errors;
}

/** A label value: empty, or at most 63 alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!LABEL_VALUE.test(value)) errors.push(LABEL_VALUE_ERROR);
  return errors;
}
