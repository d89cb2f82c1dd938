/**
 * JSONPath in the Kubernetes dialect (k8s.io/client-go/util/jsonpath) as CRD
 * `additionalPrinterColumns` use it: evaluated with missing keys allowed.
 *
 * Guarantees: evaluation never throws. A missing key, an index out of range, a filter operand
 * that is absent, or a step that does not fit the value (a field of a string, an index into an
 * object) yields no match on that branch. Parsing throws an Error naming the path and the
 * problem for anything outside the supported dialect, so a CRD can be refused when it is
 * written instead of printing blank columns forever.
 *
 * Supported: an optional `{…}` wrapper and leading `$`; `.field` (a backslash escapes the next
 * character, e.g. `.metadata.labels.app\.kubernetes\.io/name`) and `['field']`; `.*` and `[*]`
 * over array elements or object values; `[n]` (negative counts from the end) and slices
 * `[start:end:step]`; filters `[?(@.type=="Ready")]` comparing a relative path with a string,
 * number or boolean literal by `==`, `!=`, `<`, `<=`, `>`, `>=`, and `[?(@.field)]` for
 * existence. Refused: recursive descent `..`, unions `[a,b]`, `range`/`end`, text around `{}`.
 *
 * Caveats, where the Go evaluator differs: it fails the whole evaluation (an empty cell) on an
 * index out of range or on comparing values of different types; here only that branch or that
 * element drops out. Wildcards visit object values in insertion order; Go's order is random.
 */

type Literal = string | number | boolean;
type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=';
type Operand = { path: Step[] } | { literal: Literal };
type Test =
  { operator: 'exists'; operand: Operand } | { operator: Comparison; left: Operand; right: Operand };

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number; step: number }
  | { kind: 'filter'; test: Test };

/** Parses `path` once (throwing on bad syntax) and returns its evaluator. */
export function compileJsonPath(path: string): (object: unknown) => unknown[] {
  const steps = new PathParser(path).parse();
  return (object) => evaluate(steps, [object]);
}

/** Every value `path` selects in `object`, in document order. */
export function evaluateJsonPath(object: unknown, path: string): unknown[] {
  return compileJsonPath(path)(object);
}

function evaluate(steps: Step[], inputs: unknown[]): unknown[] {
  return steps.reduce((values, step) => values.flatMap((value) => applyStep(step, value)), inputs);
}

function applyStep(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isRecord(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'wildcard':
      if (Array.isArray(value)) return value;
      return isRecord(value) ? Object.values(value) : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const index = step.index < 0 ? step.index + value.length : step.index;
      return index >= 0 && index < value.length ? [value[index]] : [];
    }
    case 'slice': {
      if (!Array.isArray(value)) return [];
      const start = clampIndex(step.start ?? 0, value.length);
      const end = clampIndex(step.end ?? value.length, value.length);
      return value.slice(start, end).filter((_, i) => i % step.step === 0);
    }
    case 'filter':
      return Array.isArray(value) ? value.filter((element) => passes(step.test, element)) : [];
  }
}

function clampIndex(index: number, length: number): number {
  return Math.min(Math.max(index < 0 ? index + length : index, 0), length);
}

function passes(test: Test, element: unknown): boolean {
  if (test.operator === 'exists') return operandValues(test.operand, element).length > 0;
  const lefts = operandValues(test.left, element);
  const rights = operandValues(test.right, element);
  if (lefts.length !== 1 || rights.length !== 1) return false;
  return compare(lefts[0], test.operator, rights[0]);
}

function operandValues(operand: Operand, element: unknown): unknown[] {
  return 'literal' in operand ? [operand.literal] : evaluate(operand.path, [element]);
}

function compare(left: unknown, operator: Comparison, right: unknown): boolean {
  if (typeof left !== typeof right || !isLiteral(left)) return false;
  if (operator === '==') return left === right;
  if (operator === '!=') return left !== right;
  if (typeof left === 'boolean') return false;
  const order = left < (right as typeof left) ? -1 : left === right ? 0 : 1;
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

function isLiteral(value: unknown): value is Literal {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Characters that end a field name, as the Go parser's isTerminator. */
const TERMINATORS = new Set(' \t\r\n.,[]$@{}()=<>!');

/** True at the end of the text ('') or at a character that ends a field name. */
function endsName(char: string): boolean {
  return char === '' || TERMINATORS.has(char);
}
const COMPARISONS: Comparison[] = ['==', '!=', '<=', '>=', '<', '>'];
const SLICE = /^(-?\d+)?(?::(-?\d+)?)?(?::(-?\d+)?)?$/;
const NUMBER = /-?\d+(?:\.\d+)?/y;

class PathParser {
  private text: string;
  private pos = 0;

  constructor(private readonly source: string) {
    this.text = source.trim();
    if (this.text.startsWith('{')) {
      if (!this.text.endsWith('}')) this.fail('missing the closing "}"');
      this.text = this.text.slice(1, -1).trim();
    }
  }

  parse(): Step[] {
    if (this.text === '') this.fail('the path is empty');
    if (this.peek() === '$') this.pos++;
    const steps = this.steps();
    if (this.pos < this.text.length) this.fail('expected "." or "["');
    return steps;
  }

  private fail(problem: string): never {
    const rest = this.pos < this.text.length ? ` at ${JSON.stringify(this.text.slice(this.pos))}` : '';
    throw new Error(`invalid JSONPath ${JSON.stringify(this.source)}: ${problem}${rest}`);
  }

  private peek(offset = 0): string {
    return this.text.charAt(this.pos + offset);
  }

  private expect(char: string): void {
    if (this.peek() !== char) this.fail(`expected "${char}"`);
    this.pos++;
  }

  private skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  private steps(): Step[] {
    const steps: Step[] = [];
    for (;;) {
      if (this.peek() === '.') {
        const step = this.dotStep();
        if (step) steps.push(step);
      } else if (this.peek() === '[') {
        steps.push(this.bracketStep());
      } else {
        return steps;
      }
    }
  }

  /** `.name`, `.*`, or a bare `.` (the current value, no step). */
  private dotStep(): Step | undefined {
    this.pos++;
    if (this.peek() === '.') this.fail('recursive descent ".." is not supported');
    if (this.peek() === '*' && endsName(this.peek(1))) {
      this.pos++;
      return { kind: 'wildcard' };
    }
    let name = '';
    while (!endsName(this.peek())) {
      if (this.peek() === '\\') {
        this.pos++;
        if (this.pos >= this.text.length) this.fail('a backslash escapes nothing');
      }
      name += this.peek();
      this.pos++;
    }
    return name === '' ? undefined : { kind: 'field', name };
  }

  private bracketStep(): Step {
    this.pos++;
    if (this.peek() === '?') return this.filterStep();
    if (this.peek() === "'" || this.peek() === '"') {
      const name = this.quoted();
      this.expect(']');
      return { kind: 'field', name };
    }
    const close = this.text.indexOf(']', this.pos);
    if (close < 0) this.fail('unterminated "["');
    const inner = this.text.slice(this.pos, close);
    if (inner === '*') {
      this.pos = close + 1;
      return { kind: 'wildcard' };
    }
    if (inner.includes(',')) this.fail('unions "[a,b]" are not supported');
    const slice = SLICE.exec(inner);
    if (inner === '' || !slice) this.fail(`invalid array index ${JSON.stringify(inner)}`);
    this.pos = close + 1;
    const [, start, end, step] = slice;
    if (!inner.includes(':')) return { kind: 'index', index: Number(start) };
    const stepSize = step ? Number(step) : 1;
    if (stepSize <= 0) this.fail('a slice step must be positive');
    return { kind: 'slice', start: numberOrUndefined(start), end: numberOrUndefined(end), step: stepSize };
  }

  /** `[?(<operand> <comparison> <operand>)]` or `[?(<operand>)]`; the `[` is consumed. */
  private filterStep(): Step {
    this.pos++;
    this.expect('(');
    this.skipSpaces();
    const left = this.operand();
    this.skipSpaces();
    let test: Test;
    if (this.peek() === ')') {
      test = { operator: 'exists', operand: left };
    } else {
      const operator = COMPARISONS.find((op) => this.text.startsWith(op, this.pos));
      if (!operator) this.fail(`expected one of ${COMPARISONS.join(' ')} or ")"`);
      this.pos += operator.length;
      this.skipSpaces();
      test = { operator, left, right: this.operand() };
      this.skipSpaces();
    }
    this.expect(')');
    this.expect(']');
    return { kind: 'filter', test };
  }

  private operand(): Operand {
    const char = this.peek();
    if (char === '@') {
      this.pos++;
      return { path: this.steps() };
    }
    if (char === '"' || char === "'") return { literal: this.quoted() };
    for (const literal of [true, false]) {
      const word = String(literal);
      if (this.text.startsWith(word, this.pos) && endsName(this.peek(word.length))) {
        this.pos += word.length;
        return { literal };
      }
    }
    NUMBER.lastIndex = this.pos;
    const number = NUMBER.exec(this.text);
    if (number) {
      this.pos += number[0].length;
      return { literal: Number(number[0]) };
    }
    return this.fail('expected "@", a quoted string, a number, true or false');
  }

  /** A string between matching single or double quotes (no escapes inside). */
  private quoted(): string {
    const quote = this.peek();
    const close = this.text.indexOf(quote, this.pos + 1);
    if (close < 0) this.fail(`unterminated ${quote}`);
    const value = this.text.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }
}

function numberOrUndefined(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}
