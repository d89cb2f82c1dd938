/**
 * Validation rules: every `x-kubernetes-validations` rule of a schema, evaluated on the node it
 * sits on, as apiextensions-apiserver's CEL validator evaluates them.
 *
 * Guarantees:
 * - Each rule is looked up once per schema node (a WeakMap keyed by the node object), on the first
 *   object that reaches it, and its expressions are compiled once per distinct source text for
 *   the whole process (shared by every plane); a rule that does not compile fails every write
 *   that reaches it with `rule compile error: …` (the real server would have refused the CRD).
 * - `self` is the node's value; a rule runs only where the value is present and not null. A rule
 *   reading `oldSelf` is a transition rule: it runs only when the old object has a correlated
 *   value — same property, same map key, or the item of a `x-kubernetes-list-type: map` list
 *   with the same key fields; items of other lists never correlate. With `optionalOldSelf: true`
 *   it also runs without one, `oldSelf` then being `optional.none()`.
 * - A rule that is not true fails with `<path>: Invalid value: "<schema type>": <message>`, the
 *   message being `messageExpression` (when it yields a non-empty single-line string), else
 *   `message`, else `failed rule: <rule>`; `reason` FieldValueForbidden, FieldValueRequired or
 *   FieldValueDuplicate words it as those; `fieldPath` (`.a.b`, `['k']`) moves it to that field.
 *   A rule that errors fails with `<error> evaluating rule: <message or rule>`.
 * - In a subtree recorded as admitted under its node (admitted-subtrees.ts), only the transition
 *   rules are evaluated: every other rule there held before on the same value and holds again.
 *   A rule that held on an object as both `self` and `oldSelf` (a side the write left as stored)
 *   is not evaluated again on that same object as both: a rule is a function of the two. Nor is
 *   a rule evaluated again on inputs equal by content (their JSON) to inputs it held on lately,
 *   at the same schema node; a rule that failed is evaluated every time, so it reports every time.
 *
 * Example: on `spec.location` with `{rule: "self == oldSelf", message: "spec.location is
 * immutable"}`, a create passes (no old value), an update changing `spec.location.name` fails
 * with `spec.location: Invalid value: "object": spec.location is immutable`, and an update that
 * adds `spec.location` where the old object had none passes.
 *
 * Caveats: validation ratcheting (errors on unchanged values downgraded to warnings) and cost
 * limits are not implemented; rules inside `allOf`/`anyOf`/`oneOf` are not evaluated. Kubernetes
 * 1.32 words failures with the schema type as the value, as here; later releases print the value.
 */
import { isCelError, type CelError } from '@bufbuild/cel';
import { duplicateValue, forbiddenField, invalidValue, required, type FieldError } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import { celOptional, compileExpression, toCelValue, type Bindings, type Expression } from './cel.ts';
import {
  childPath,
  displayPath,
  indexPath,
  isEmbeddedResource,
  keyPath,
  mapValueSchema,
  schemaType,
  type SchemaNode,
  type ValidationRule,
} from './schema-node.ts';

type CompiledRule =
  | { rule: ValidationRule; check: Expression; message?: Expression; fieldPath: string }
  | { rule: ValidationRule; error: string };

const compiledRules = new WeakMap<SchemaNode, CompiledRule[]>();
const subtreeHasRules = new WeakMap<SchemaNode, boolean>();
const subtreeHasTransitionRules = new WeakMap<SchemaNode, boolean>();
/** Per object: the compiled rules that held with it as both self and oldSelf. */
const heldOnUnchanged = new WeakMap<object, CompiledRule[]>();
/**
 * Per compiled rule (one per schema node): the inputs it held on, by content (contentKeys). The
 * same small values come back object after object — a network reference, an address family
 * list, the addresses a cell's interface and its two copies share — and a rule is a function of
 * its inputs. Bounded: at most HELD_CONTENTS_PER_RULE texts of at most MAX_HELD_CONTENT_LENGTH
 * characters per rule, starting over when full.
 */
const heldContents = new WeakMap<CompiledRule, Set<string>>();
const HELD_CONTENTS_PER_RULE = 512;
const MAX_HELD_CONTENT_LENGTH = 512;

/** Every failing rule in `object` (and, for transition rules, against `old`). */
export function validateRules(object: unknown, old: unknown, schema: SchemaNode): FieldError[] {
  const errors: FieldError[] = [];
  visit(object, old, schema, '', true, errors);
  return errors;
}

function visit(
  value: unknown,
  old: unknown,
  node: SchemaNode,
  path: string,
  resourceRoot: boolean,
  errors: FieldError[],
  transitionsOnly = false,
) {
  if (value === null || value === undefined) return;
  // In a subtree admitted before (admitted-subtrees.ts) every rule not reading oldSelf held, and
  // holds again: only the transition rules are evaluated.
  const onlyTransitions =
    transitionsOnly || ((!resourceRoot || isEmbeddedResource(node)) && isAdmitted(node, value));
  if (!(onlyTransitions ? hasTransitionRules(node) : hasRules(node))) return;
  // Walked on every write: no entry lists, no per-node arrays, and a child's path is spelled only
  // for a child whose subtree has rules (bench/README.md, session 27).
  if (rulesOf(node).length > 0) evaluateNode(value, old, node, path, resourceRoot, onlyTransitions, errors);
  if (Array.isArray(value)) {
    const items = node.items;
    if (!items || !hasRules(items)) return;
    const oldItem = correlator(node, old);
    const embedded = isEmbeddedResource(items);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      visit(item, oldItem(item), items, indexPath(path, i), embedded, errors, onlyTransitions);
    }
  } else if (isPlainObject(value)) {
    const oldObject = isPlainObject(old) ? old : undefined;
    const values = mapValueSchema(node);
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const property = node.properties?.[key];
      const child = property ?? values;
      if (!child || !hasRules(child)) continue;
      const at = property ? childPath(path, key) : keyPath(path, key);
      const oldField = oldObject && Object.hasOwn(oldObject, key) ? oldObject[key] : undefined;
      visit(value[key], oldField, child, at, isEmbeddedResource(child), errors, onlyTransitions);
    }
  }
}

/** Compiles now every rule at or under `node`, as the first object reaching each would. */
export function prepareRules(node: SchemaNode): void {
  if (!hasRules(node)) return;
  rulesOf(node);
  hasTransitionRules(node);
  for (const child of childNodes(node)) if (child) prepareRules(child);
}

/** Whether the rules at `node` are compiled (by a write reaching it, or by prepareRules). */
export function areRulesCompiled(node: SchemaNode): boolean {
  return compiledRules.has(node);
}

function hasRules(node: SchemaNode): boolean {
  let found = subtreeHasRules.get(node);
  if (found === undefined) {
    found =
      (node['x-kubernetes-validations']?.length ?? 0) > 0 ||
      childNodes(node).some((child) => child && hasRules(child));
    subtreeHasRules.set(node, found);
  }
  return found;
}

/** Whether a rule reading oldSelf (or one that does not compile) sits at `node` or below it. */
function hasTransitionRules(node: SchemaNode): boolean {
  let found = subtreeHasTransitionRules.get(node);
  if (found === undefined) {
    found =
      rulesOf(node).some(isTransitionRule) ||
      childNodes(node).some((child) => child && hasTransitionRules(child));
    subtreeHasTransitionRules.set(node, found);
  }
  return found;
}

function childNodes(node: SchemaNode): (SchemaNode | undefined)[] {
  return [...Object.values(node.properties ?? {}), mapValueSchema(node), node.items];
}

/** A rule whose result may depend on the old object: it reads oldSelf, or it did not compile. */
function isTransitionRule(compiled: CompiledRule): boolean {
  return 'error' in compiled || compiled.check.usesOldSelf;
}

/** Finds an item's old counterpart: by key fields in a list-type map, never in other lists. */
function correlator(node: SchemaNode, old: unknown): (item: unknown) => unknown {
  const keyFields = node['x-kubernetes-list-map-keys'] ?? [];
  if (node['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return () => undefined;
  const keyOf = (item: unknown) =>
    JSON.stringify(keyFields.map((k) => (isPlainObject(item) ? item[k] : undefined)));
  const byKey = new Map<string, unknown>(old.map((item: unknown) => [keyOf(item), item]));
  return (item) => byKey.get(keyOf(item));
}

/** Adds to `errors` the failures of the rules at `node` (only its transition rules, when asked). */
function evaluateNode(
  value: unknown,
  old: unknown,
  node: SchemaNode,
  path: string,
  resourceRoot: boolean,
  onlyTransitions: boolean,
  errors: FieldError[],
): void {
  // A rule is a function of self and oldSelf: one that held on this very object as both (the
  // unchanged side of a write) holds again.
  const unchanged = value === old && typeof value === 'object' && value !== null ? value : undefined;
  const held = unchanged && heldOnUnchanged.get(unchanged);
  const type = schemaType(node);
  const noOld = old === undefined || old === null;
  let key: ((usesOldSelf: boolean) => string) | undefined;
  let plain: Bindings | undefined;
  for (const compiled of rulesOf(node)) {
    if ((onlyTransitions && !isTransitionRule(compiled)) || held?.includes(compiled)) continue;
    if ('error' in compiled) {
      errors.push(invalidValue(displayPath(path), type, `rule compile error: ${compiled.error}`));
      continue;
    }
    const { rule, check } = compiled;
    if (check.usesOldSelf && noOld && !rule.optionalOldSelf) continue;
    key ??= contentKeys(value, noOld ? undefined : old);
    const content = key(check.usesOldSelf);
    if (!heldOnContent(compiled, content)) {
      plain ??= bindingsOf(value, noOld ? undefined : old, node, resourceRoot);
      const result = check.evaluate(
        rule.optionalOldSelf ? { self: plain.self, oldSelf: celOptional(plain.oldSelf) } : plain,
      );
      if (isCelError(result)) {
        errors.push(invalidValue(displayPath(path), type, runtimeFailure(result, rule)));
        continue;
      }
      if (result !== true) {
        errors.push(ruleFailure(compiled, reportedPath(path, compiled.fieldPath), type, plain));
        continue;
      }
      rememberHeld(compiled, content);
    }
    if (unchanged) heldOn(unchanged).push(compiled);
  }
}

/** self and, when there is an old value, oldSelf, as CEL values of `node`. */
function bindingsOf(value: unknown, old: unknown, node: SchemaNode, resourceRoot: boolean): Bindings {
  const self = toCelValue(value, node, resourceRoot);
  if (old === undefined) return { self };
  return { self, oldSelf: value === old ? self : toCelValue(old, node, resourceRoot) };
}

/**
 * The text a rule's inputs are known by: self's JSON, and for a rule reading oldSelf also
 * oldSelf's ('' when there is none), each encoded once per node and only when a rule asks.
 * Equal texts are equal JSON values, which CEL sees as equal values at the same node.
 */
function contentKeys(value: unknown, old: unknown): (usesOldSelf: boolean) => string {
  let self: string | undefined;
  let oldSelf: string | undefined;
  return (usesOldSelf) => {
    self ??= JSON.stringify(value);
    if (!usesOldSelf) return self;
    oldSelf ??= old === undefined ? '' : old === value ? self : JSON.stringify(old);
    return `${self}\u0000${oldSelf}`;
  };
}

/** Whether `compiled` held before on inputs known by `content` (contentKeys). */
function heldOnContent(compiled: CompiledRule, content: string): boolean {
  return heldContents.get(compiled)?.has(content) ?? false;
}

function rememberHeld(compiled: CompiledRule, content: string): void {
  if (content.length > MAX_HELD_CONTENT_LENGTH) return;
  let contents = heldContents.get(compiled);
  if (!contents) {
    contents = new Set();
    heldContents.set(compiled, contents);
  }
  if (contents.size >= HELD_CONTENTS_PER_RULE) contents.clear();
  contents.add(content);
}

/** The rules that held with `value` as both self and oldSelf (a node's few rules: a list). */
function heldOn(value: object): CompiledRule[] {
  let held = heldOnUnchanged.get(value);
  if (!held) {
    held = [];
    heldOnUnchanged.set(value, held);
  }
  return held;
}

function rulesOf(node: SchemaNode): CompiledRule[] {
  let rules = compiledRules.get(node);
  if (!rules) {
    rules = (node['x-kubernetes-validations'] ?? []).map((rule) => compileRule(rule, node));
    compiledRules.set(node, rules);
  }
  return rules;
}

/** How many distinct expressions `sharedExpression` keeps; past it, it starts afresh. */
export const SHARED_EXPRESSIONS = 4096;
const sharedExpressions = new Map<string, Expression>();

/**
 * `source` compiled, shared by content across schema nodes and planes (every project plane holds
 * its own copy of the same CRDs), as compiled JSON schemas are (validate.ts): a compiled
 * expression holds no state between evaluations. Throws as compileExpression does.
 */
export function sharedExpression(source: string): Expression {
  let expression = sharedExpressions.get(source);
  if (!expression) {
    expression = compileExpression(source);
    if (sharedExpressions.size >= SHARED_EXPRESSIONS) sharedExpressions.clear();
    sharedExpressions.set(source, expression);
  }
  return expression;
}

function compileRule(rule: ValidationRule, node: SchemaNode): CompiledRule {
  try {
    return {
      rule,
      check: sharedExpression(rule.rule),
      message: rule.messageExpression ? sharedExpression(rule.messageExpression) : undefined,
      fieldPath: rule.fieldPath ? normalizedFieldPath(rule.fieldPath, node) : '',
    };
  } catch (err) {
    return { rule, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A rule's `fieldPath` (`.spec.name`, `['a.b']`, `.labels['x']`) as a suffix of its node's path:
 * `.name` for a property, `[key]` for a map key. Throws when it names no field.
 */
function normalizedFieldPath(fieldPath: string, node: SchemaNode): string {
  const tokens = /\.([^.[\]']+)|\['((?:[^'\\]|\\.)*)'\]/gy;
  let path = '';
  let at: SchemaNode | undefined = node;
  let match: RegExpExecArray | null;
  while ((match = tokens.exec(fieldPath))) {
    const name = match[1] ?? match[2].replace(/\\(.)/g, '$1');
    const property: SchemaNode | undefined = at?.properties?.[name];
    const values = mapValueSchema(at);
    if (property) path = `${path}.${name}`;
    else if (values && !at?.properties) path = keyPath(path, name);
    else throw new Error(`fieldPath ${fieldPath} does not refer to a valid field`);
    at = property ?? values;
    if (tokens.lastIndex === fieldPath.length) return path;
  }
  throw new Error(`fieldPath ${fieldPath} is not a valid path`);
}

/** Where a failure is reported: the node, or the field its rule's `fieldPath` names. */
function reportedPath(path: string, fieldPath: string): string {
  return displayPath(`${path}${fieldPath}`.replace(/^\./, ''));
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() || rule.rule.trim();
}

function runtimeFailure(error: CelError, rule: ValidationRule): string {
  if (error.message.startsWith('found no matching overload')) {
    return `'${error.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  }
  return `${error.message} evaluating rule: ${ruleErrorString(rule)}`;
}

function ruleFailure(
  compiled: { rule: ValidationRule; message?: Expression },
  field: string,
  type: string,
  bindings: Bindings,
): FieldError {
  const { rule } = compiled;
  const detail =
    evaluatedMessage(compiled.message, bindings) ??
    (rule.message?.trim() || `failed rule: ${rule.rule.trim()}`);
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbiddenField(field, detail);
    case 'FieldValueRequired':
      return required(field, detail);
    case 'FieldValueDuplicate':
      return duplicateValue(field, type);
    default:
      return invalidValue(field, type, detail);
  }
}

/** The messageExpression's string, or undefined when it errs or yields no usable message. */
function evaluatedMessage(message: Expression | undefined, bindings: Bindings): string | undefined {
  const result = message?.evaluate(bindings);
  if (typeof result !== 'string') return undefined;
  const trimmed = result.trim();
  return trimmed === '' || trimmed.includes('\n') ? undefined : trimmed;
}
