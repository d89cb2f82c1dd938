/**
 * Field selectors: the `fieldSelector` query parameter, parsed as
 * k8s.io/apimachinery/pkg/fields.ParseSelector does and checked against the fields a kind
 * supports, as the API server's field label conversion does.
 *
 * Guarantees: terms are `field=value`, `field==value` or `field!=value` joined by commas
 * (AND); in a value `\,`, `\=` and `\\` stand for `,`, `=` and `\`. Nothing is trimmed
 * (`metadata.name = x` names the field `metadata.name `, as in Go). Every refusal is a 400
 * BadRequest worded as the real server's: a malformed term first, then the first field (in
 * sorted term order) the kind does not support: `field label not supported: <field>`.
 * A field missing from an object compares as the empty string, so `f!=x` matches it.
 */
import type { KubeObject } from '../objects.ts';
import { badRequest } from '../errors.ts';

export interface FieldRequirement {
  field: string;
  operator: 'Equals' | 'NotEquals';
  value: string;
}

export interface FieldSelector {
  /** All must hold. */
  requirements: FieldRequirement[];
}

export type FieldExtractors = Record<string, (object: KubeObject) => string>;

const UNSUPPORTED_FIELD_PREFIX = 'field label not supported: ';

/** `!=` and `==` are tried before `=` at each position, so `a==b` does not read as `a` = `=b`. */
const OPERATORS = [
  ['!=', 'NotEquals'],
  ['==', 'Equals'],
  ['=', 'Equals'],
] as const;

export function parseFieldSelector(text: string | undefined, supported: ReadonlySet<string>): FieldSelector {
  if (!text) return { requirements: [] };
  const terms = splitTerms(text)
    .filter((term) => term !== '')
    .sort();
  const requirements = terms.map((term) => parseTerm(text, term));
  const unsupported = requirements.find((requirement) => !supported.has(requirement.field));
  if (unsupported) throw badRequest(`${UNSUPPORTED_FIELD_PREFIX}${unsupported.field}`);
  return { requirements };
}

export function matchesFields(selector: FieldSelector, fields: Record<string, string>): boolean {
  return selector.requirements.every(({ field, operator, value }) => {
    const actual = Object.hasOwn(fields, field) ? fields[field] : '';
    return (actual === value) === (operator === 'Equals');
  });
}

/** The fields every kind can be selected by, plus the kind's own (e.g. `status.phase` of Namespaces). */
export function objectFields(object: KubeObject, extra?: FieldExtractors): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': object.metadata.name ?? '',
    'metadata.namespace': object.metadata.namespace ?? '',
  };
  for (const [field, extract] of Object.entries(extra ?? {})) fields[field] = extract(object);
  return fields;
}

/** The name the selector pins with `metadata.name=` (or `==`), if any: one object at most matches. */
export function requiredName(selector: FieldSelector): string | undefined {
  return selector.requirements.find((r) => r.field === 'metadata.name' && r.operator === 'Equals')?.value;
}

/** Splits on commas not escaped by a backslash; the backslashes stay for `unescape`. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

function parseTerm(selector: string, term: string): FieldRequirement {
  for (let i = 0; i < term.length; i++) {
    for (const [symbol, operator] of OPERATORS) {
      if (term.startsWith(symbol, i)) {
        return { field: term.slice(0, i), operator, value: unescape(term.slice(i + symbol.length)) };
      }
    }
  }
  throw badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
}

function unescape(value: string): string {
  let result = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === '\\') {
      const escaped = value.charAt(i + 1);
      if (escaped !== '\\' && escaped !== ',' && escaped !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${escaped}`);
      }
      result += escaped;
      i++;
    } else if (char === '=') {
      // Go prints the rune with %v: its code point, not the character.
      throw badRequest(`invalid field selector: unescaped character in value: ${char.codePointAt(0)}`);
    } else {
      result += char;
    }
  }
  return result;
}
