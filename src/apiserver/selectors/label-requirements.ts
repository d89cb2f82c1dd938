/**
 * Label selectors: the `labelSelector` query parameter and metav1.LabelSelector objects,
 * parsed and matched as k8s.io/apimachinery/pkg/labels does.
 *
 * Guarantees: `parseLabelSelector` accepts exactly the grammar of labels.Parse for `k=v`,
 * `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` and `!k`, joined by commas (AND), with
 * whitespace anywhere between tokens; `in`/`notin` are keywords only where an operator is
 * expected. Keys and values are validated as label syntax. Every refusal is a 400 BadRequest
 * with apimachinery's message, e.g. `unable to parse requirement: <nil>: Invalid value: "a_":
 * name part must …` or `found ')', expected: !, identifier, or 'end of string'`.
 * `matchesLabels` has labels.Requirement.Matches semantics: `!=` and `notin` also match an
 * object without the key.
 * `selectorFromObject` is LabelSelectorAsSelector: an absent (undefined or null) selector
 * selects nothing, an empty one (`{}`) selects everything.
 * Caveat: the set-based `>` and `<` (Gt/Lt) of apimachinery are refused as unknown operators.
 */
import { badRequest } from '../errors.ts';
import { labelKeyErrors, labelValueErrors } from './label-syntax.ts';

export type LabelOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** One value for Equals/NotEquals, at least one for In/NotIn, none for Exists/DoesNotExist. */
  values: string[];
}

export interface LabelSelector {
  /** All must hold. */
  requirements: LabelRequirement[];
  /** Set only for an absent metav1.LabelSelector, which matches no object at all. */
  matchesNothing?: true;
}

/** metav1.LabelSelector as it appears in objects. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const REQUIREMENT_ERROR_PREFIX = 'unable to parse requirement: ';
const OPERATOR_EXPECTED = "expected: '=', '!=', '==', 'in', notin'";

/** The selector a `labelSelector` query parameter asks for; absent or empty selects everything. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  return { requirements: new SelectorParser(tokenize(text ?? '')).parse() };
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (selector.matchesNothing) return false;
  return selector.requirements.every((requirement) => matchesRequirement(requirement, labels ?? {}));
}

function matchesRequirement(
  { key, operator, values }: LabelRequirement,
  labels: Record<string, string>,
): boolean {
  const has = Object.hasOwn(labels, key);
  switch (operator) {
    case 'In':
    case 'Equals':
      return has && values.includes(labels[key]);
    case 'NotIn':
    case 'NotEquals':
      return !has || !values.includes(labels[key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/** True when the selector does not restrict anything (not for the select-nothing selector). */
export function isEmptySelector(selector: LabelSelector): boolean {
  return !selector.matchesNothing && selector.requirements.length === 0;
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

/**
 * The selector a metav1.LabelSelector stands for. Throws an Error worded as apimachinery's for
 * an unknown operator or an invalid key, value or value count — selectors that validation on
 * write refuses, so a stored object never throws here.
 */
export function selectorFromObject(selector: LabelSelectorObject | undefined | null): LabelSelector {
  if (selector === undefined || selector === null) return { requirements: [], matchesNothing: true };
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push(checked({ key, operator: 'Equals', values: [value] }));
  }
  for (const expression of selector.matchExpressions ?? []) {
    const operator = OBJECT_OPERATORS[expression.operator];
    if (!operator)
      throw new Error(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    requirements.push(checked({ key: expression.key, operator, values: [...(expression.values ?? [])] }));
  }
  return { requirements };
}

/** labels.NewRequirement's validation, for requirements built from objects. */
function checked(requirement: LabelRequirement): LabelRequirement {
  const { key, operator, values } = requirement;
  const problems: string[] = [];
  const keyErrors = labelKeyErrors(key);
  if (keyErrors.length > 0)
    problems.push(`key: Invalid value: ${JSON.stringify(key)}: ${keyErrors.join('; ')}`);
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    problems.push(
      `values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty`,
    );
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    problems.push(
      `values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`,
    );
  }
  problems.push(...valueProblems(key, values));
  if (problems.length > 0) throw new Error(aggregate(problems));
  return requirement;
}

function valueProblems(key: string, values: string[]): string[] {
  return values.flatMap((value, i) => {
    const errors = labelValueErrors(value);
    return errors.length > 0
      ? [`values[${i}][${key}]: Invalid value: ${JSON.stringify(value)}: ${errors.join('; ')}`]
      : [];
  });
}

/** An aggregate error's message: one error alone, several deduplicated in brackets. */
function aggregate(problems: string[]): string {
  const unique = [...new Set(problems)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

function goStringSlice(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

type TokenKind =
  'identifier' | 'end' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '<' | '>' | 'in' | 'notin';

interface Token {
  kind: TokenKind;
  literal: string;
}

const SYMBOLS = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/** labels.Lexer: identifiers run to whitespace or a symbol; `==` and `!=` are single tokens. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (WHITESPACE.has(text.charAt(pos))) pos++;
    if (pos >= text.length) {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    const pair = text.slice(pos, pos + 2);
    if (pair === '==' || pair === '!=') {
      tokens.push({ kind: pair, literal: pair });
      pos += 2;
    } else if (SYMBOLS.has(text[pos])) {
      tokens.push({ kind: text[pos] as TokenKind, literal: text[pos] });
      pos += 1;
    } else {
      const start = pos;
      while (pos < text.length && !WHITESPACE.has(text[pos]) && !SYMBOLS.has(text[pos])) pos++;
      const word = text.slice(start, pos);
      tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'identifier', literal: word });
    }
  }
}

/** labels.Parser, step for step, with its error messages. */
class SelectorParser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const next = this.lookahead();
      if (next.kind === 'end') return requirements;
      if (next.kind !== 'identifier' && next.kind !== '!') {
        throw badRequest(`found '${next.literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirement());
      const after = this.consume();
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') throw badRequest(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.lookahead();
      if (following.kind !== 'identifier' && following.kind !== '!') {
        throw badRequest(`found '${following.literal}', expected: identifier after ','`);
      }
    }
  }

  /** Outside the operator position `in` and `notin` are plain words (`in in (in)` is valid). */
  private lookahead(operatorPosition = false): Token {
    const token = this.tokens[Math.min(this.position, this.tokens.length - 1)];
    return !operatorPosition && (token.kind === 'in' || token.kind === 'notin')
      ? { kind: 'identifier', literal: token.literal }
      : token;
  }

  private consume(operatorPosition = false): Token {
    const token = this.lookahead(operatorPosition);
    this.position++;
    return token;
  }

  private fail(problem: string): never {
    throw badRequest(`${REQUIREMENT_ERROR_PREFIX}${problem}`);
  }

  private requirement(): LabelRequirement {
    let token = this.consume();
    const negated = token.kind === '!';
    if (negated) token = this.consume();
    if (token.kind !== 'identifier') this.fail(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyErrors = labelKeyErrors(key);
    if (keyErrors.length > 0)
      this.fail(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrors.join('; ')}`);
    if (negated) return { key, operator: 'DoesNotExist', values: [] };
    const next = this.lookahead().kind;
    if (next === 'end' || next === ',') return { key, operator: 'Exists', values: [] };

    const operator = this.operator();
    const values = operator === 'In' || operator === 'NotIn' ? this.valueSet() : [this.exactValue()];
    const problems = valueProblems(key, values);
    if (problems.length > 0) this.fail(aggregate(problems));
    return { key, operator, values };
  }

  private operator(): LabelOperator {
    const token = this.consume(true);
    switch (token.kind) {
      case 'in':
        return 'In';
      case 'notin':
        return 'NotIn';
      case '=':
      case '==':
        return 'Equals';
      case '!=':
        return 'NotEquals';
      default:
        return this.fail(`found '${token.literal}', ${OPERATOR_EXPECTED}`);
    }
  }

  /** `(a,b,…)`: sorted and deduplicated, with empty strings for empty slots, as a Go string set. */
  private valueSet(): string[] {
    const open = this.consume();
    if (open.kind !== '(') this.fail(`found '${open.literal}' expected: '('`);
    const first = this.lookahead();
    if (first.kind === ')') {
      this.consume();
      return [''];
    }
    if (first.kind !== 'identifier' && first.kind !== ',') {
      this.fail(`found '${first.literal}', expected: ',', ')' or identifier`);
    }
    const values = this.identifiers();
    this.consume();
    return [...values].sort();
  }

  /** The list inside parentheses, stopping before the `)`. */
  private identifiers(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const token = this.consume();
      if (token.kind === 'identifier') {
        values.add(token.literal);
        const next = this.lookahead();
        if (next.kind === ')') return values;
        if (next.kind !== ',') this.fail(`found '${next.literal}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead().kind;
        if (next === ')') {
          values.add('');
          return values;
        }
        if (next === ',') {
          this.consume();
          values.add('');
        }
      } else {
        this.fail(`found '${token.literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The value after `=`, `==` or `!=`; nothing before the end or a comma is the empty value. */
  private exactValue(): string {
    const next = this.lookahead();
    if (next.kind === 'end' || next.kind === ',') return '';
    const token = this.consume();
    if (token.kind !== 'identifier') this.fail(`found '${token.literal}', expected: identifier`);
    return token.literal;
  }
}
