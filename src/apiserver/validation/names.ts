/**
 * Object name rules, worded as apimachinery words them: DNS-1123 subdomain for most kinds,
 * DNS-1123 label for Namespaces, path segment for the RBAC kinds.
 */
import { invalidValue, type FieldError } from '../errors.ts';

export type NameRule = 'subdomain' | 'label' | 'path-segment';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const SUBDOMAIN_DETAIL =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_DETAIL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** The problems with `name` under `rule`, as field errors on `field`. */
export function validateName(name: string, rule: NameRule, field = 'metadata.name'): FieldError[] {
  switch (rule) {
    case 'label':
      if (name.length > 63) return [invalidValue(field, name, 'must be no more than 63 characters')];
      return LABEL.test(name) ? [] : [invalidValue(field, name, LABEL_DETAIL)];
    case 'subdomain':
      if (name.length > 253) return [invalidValue(field, name, 'must be no more than 253 characters')];
      return SUBDOMAIN.test(name) ? [] : [invalidValue(field, name, SUBDOMAIN_DETAIL)];
    case 'path-segment':
      if (name === '.' || name === '..') return [invalidValue(field, name, `may not be '${name}'`)];
      for (const forbidden of ['/', '%']) {
        if (name.includes(forbidden)) return [invalidValue(field, name, `may not contain '${forbidden}'`)];
      }
      return [];
  }
}

export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && LABEL.test(value);
}

export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && SUBDOMAIN.test(value);
}
