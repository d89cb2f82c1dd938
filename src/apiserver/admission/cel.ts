/**
 * CEL: the expression language of `x-kubernetes-validations`, evaluated with @bufbuild/cel over
 * values shaped by the schema the way the Kubernetes API server shapes them.
 *
 * Guarantees: compiling and evaluating are synchronous and never throw for a well-formed value;
 * evaluation returns the result or a CelError. Compiling parses the expression and checks that
 * every function it calls exists, so a misspelt function fails at compile time as it would in
 * Kubernetes (`undeclared reference to 'foo'`).
 *
 * What works: every standard operator and function (comparisons with mixed int/double, `&&`, `||`,
 * `!`, `?:`, `in`, indexing, `size`, `int`, `double`, `string`, `type`, `timestamp`, `duration`,
 * `startsWith`, `endsWith`, `contains`, `matches` with RE2 semantics), the macros `has`, `all`,
 * `exists`, `exists_one`, `filter` and `map`, and the strings extension Kubernetes also installs
 * (`charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`,
 * `substring`, `trim`, `join`, `format`, `strings.quote`). Optionals are emulated far enough for
 * `optionalOldSelf` rules: `optional.of(x)`, `optional.none()`, and `hasValue()`, `value()`,
 * `orValue(x)` on them.
 *
 * How values look: `integer` fields are CEL ints, `number` fields doubles, int-or-string an int or
 * a string; an object with `properties` exposes only its declared fields, under their escaped
 * names (`x-y` is `self.x__dash__y`, `in` is `self.__in__`), a map or free-form object its raw
 * keys (`self['topology.datum.net/city-code']`); at a resource root or embedded resource only
 * `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` besides the declared fields.
 *
 * Caveats: @bufbuild/cel exposes no type checker, so a misspelt field or an operand of the wrong
 * type is found only when the rule runs (as a runtime error), and nothing estimates cost. Not
 * available: the optional syntax (`self.?x`, `[?k]`), equality of optionals, and the Kubernetes
 * libraries (lists `isSorted`/`sum`/`min`/`max`/`indexOf`, regex `find`/`findAll`, `url`,
 * `quantity`, `ip`/`cidr`, `sets`, `authz`).
 */
import {
  CelScalar,
  celEnv,
  celFunc,
  celMap,
  celMethod,
  isCelMap,
  parse,
  plan,
  type CelError,
  type CelInput,
  type CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { isPlainObject } from '../objects.ts';
import { isEmbeddedResource, mapValueSchema, type SchemaNode } from './schema-node.ts';

export type Bindings = { self: CelInput; oldSelf?: CelInput };

export interface Expression {
  source: string;
  /** Whether the expression reads `oldSelf`, which makes a rule a transition rule. */
  usesOldSelf: boolean;
  evaluate(bindings: Bindings): CelValue | CelError;
}

type Expr = ReturnType<typeof parse>['expr'];

/** Optionals handed to CEL: boxes (empty CEL maps, recognised by identity) → their content. */
const optionals = new WeakMap<object, { value?: CelInput }>();

export function celOptional(value: CelInput | undefined): CelInput {
  const box = celMap(new Map());
  optionals.set(box, value === undefined ? {} : { value });
  return box;
}

function unbox(target: CelValue): { value?: CelInput } {
  const content = isCelMap(target) ? optionals.get(target) : undefined;
  if (!content) throw new Error('no such overload: not an optional');
  return content;
}

const environment = celEnv({
  funcs: [
    ...strings,
    celFunc('optional.of', [CelScalar.DYN], CelScalar.DYN, (value) => celOptional(value)),
    celFunc('optional.none', [], CelScalar.DYN, () => celOptional(undefined)),
    celMethod('hasValue', CelScalar.DYN, [], CelScalar.BOOL, function () {
      return 'value' in unbox(this);
    }),
    celMethod('value', CelScalar.DYN, [], CelScalar.DYN, function (): CelInput {
      const content = unbox(this);
      if (!('value' in content)) throw new Error('optional.none() dereference');
      return content.value!;
    }),
    celMethod('orValue', CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (fallback): CelInput {
      const content = unbox(this);
      return 'value' in content ? content.value! : fallback;
    }),
  ],
});

/** Calls the planner evaluates itself rather than through a declared function. */
const PLANNED_CALLS = new Set([
  '_&&_',
  '_||_',
  '_?_:_',
  '_[_]',
  '_[?_]',
  '_?._',
  '@not_strictly_false',
  '__not_strictly_false__',
]);

/** Parses and plans `source`; throws an Error whose message says why it does not compile. */
export function compileExpression(source: string): Expression {
  const { expr } = parse(source);
  const undeclared = undeclaredFunction(expr);
  if (undeclared) throw new Error(`undeclared reference to '${undeclared}'`);
  const program = plan(environment, expr);
  return {
    source,
    usesOldSelf: [...subExpressions(expr)].some(
      (e) => e.exprKind.case === 'identExpr' && e.exprKind.value.name === 'oldSelf',
    ),
    evaluate: (bindings) => program(bindings),
  };
}

function undeclaredFunction(expr: Expr): string | undefined {
  for (const e of subExpressions(expr)) {
    if (e.exprKind.case !== 'callExpr') continue;
    const call = e.exprKind.value;
    if (PLANNED_CALLS.has(call.function) || environment.funcs.find(call.function)) continue;
    const qualifier = call.target && qualifiedName(call.target);
    if (qualifier && environment.funcs.find(`${qualifier}.${call.function}`)) continue;
    return call.function;
  }
  return undefined;
}

/** `a.b.c` for a chain of identifier selections, as CEL resolves namespaced function names. */
function qualifiedName(e: Expr): string | undefined {
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case !== 'selectExpr' || !e.exprKind.value.operand) return undefined;
  const operand = qualifiedName(e.exprKind.value.operand);
  return operand && `${operand}.${e.exprKind.value.field}`;
}

/** Every expression node inside `node`, itself included. */
function* subExpressions(node: unknown): Generator<Expr> {
  if (Array.isArray(node)) {
    for (const child of node) yield* subExpressions(child);
  } else if (typeof node === 'object' && node !== null) {
    if ((node as { $typeName?: string }).$typeName === 'cel.expr.Expr') yield node as Expr;
    for (const child of Object.values(node)) yield* subExpressions(child);
  }
}

/** A JSON value as CEL sees it at a node of schema `node` (see the module comment). */
export function toCelValue(value: unknown, node: SchemaNode | undefined, resourceRoot = false): CelInput {
  if (typeof value === 'number') return celNumber(value, node);
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, node?.items));
  if (isPlainObject(value)) return celObject(value, node, resourceRoot || isEmbeddedResource(node));
  return value as CelInput;
}

function celNumber(value: number, node: SchemaNode | undefined): number | bigint {
  if (node?.type === 'number') return value;
  return Number.isInteger(value) ? BigInt(value) : value;
}

function celObject(object: Record<string, unknown>, node: SchemaNode | undefined, embedded: boolean) {
  const fields = new Map<string, CelInput>();
  if (embedded) {
    for (const key of ['apiVersion', 'kind'] as const) {
      if (typeof object[key] === 'string') fields.set(key, object[key]);
    }
    if (isPlainObject(object.metadata)) {
      const { name, generateName } = object.metadata;
      fields.set('metadata', {
        ...(typeof name === 'string' && { name }),
        ...(typeof generateName === 'string' && { generateName }),
      });
    }
  }
  if (node?.properties) {
    for (const [key, property] of Object.entries(node.properties)) {
      const name = escapedFieldName(key);
      if (name === undefined || !Object.hasOwn(object, key) || (embedded && fields.has(key))) continue;
      fields.set(name, toCelValue(object[key], property));
    }
  } else {
    const values = mapValueSchema(node);
    for (const [key, field] of Object.entries(object)) {
      if (!(embedded && fields.has(key))) fields.set(key, toCelValue(field, values));
    }
  }
  return fields;
}

const RESERVED = new Set([
  ...['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function'],
  ...['if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'],
]);
const ESCAPES: Record<string, string> = {
  __: '__underscores__',
  '.': '__dot__',
  '-': '__dash__',
  '/': '__slash__',
};

/** A property name as a CEL field name, Kubernetes' way; undefined when it has no CEL spelling. */
export function escapedFieldName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (/[^a-zA-Z0-9_./-]/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (match) => ESCAPES[match]);
}
