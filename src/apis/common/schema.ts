/**
 * Schema building blocks: the TypeBox shapes the kinds are written with, each producing what a
 * structural CRD schema needs once `structural-schema.ts` has converted it.
 *
 * Guarantees: `StringEnum` is `{type: string, enum}` whose `Static` is the union of its values;
 * `StringMap` converts to `additionalProperties`; rules carry their message verbatim, so the
 * spec, the CRD and the 422 a client reads use the same words.
 */
import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox';

/** One `x-kubernetes-validations` entry. */
export interface ValidationRule {
  rule: string;
  message: string;
}

export function rule(expression: string, message: string): ValidationRule {
  return { rule: expression, message };
}

/** A transition rule refusing any change once the field is set. */
export function immutable(message: string): ValidationRule {
  return rule('self == oldSelf', message);
}

/** The options that attach CEL rules to a node. */
export function validations(...rules: ValidationRule[]): { 'x-kubernetes-validations': ValidationRule[] } {
  return { 'x-kubernetes-validations': rules };
}

export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export function Int32(options: SchemaOptions = {}) {
  return Type.Integer({ format: 'int32', ...options });
}

export function Int64(options: SchemaOptions = {}) {
  return Type.Integer({ format: 'int64', ...options });
}

/** A map from string keys to `value` (labels, topology, IPAM scopes). */
export function StringMap<T extends TSchema>(value: T, options: SchemaOptions = {}) {
  return Type.Record(Type.String(), value, options);
}

/** An object whose undeclared fields are kept as written (Karmada kinds accept theirs unchanged). */
export const PRESERVE_UNKNOWN = { 'x-kubernetes-preserve-unknown-fields': true } as const;

/** A name field of another object: 1..253 characters. */
export function ObjectName(options: SchemaOptions = {}) {
  return Type.String({ minLength: 1, maxLength: 253, ...options });
}
