/**
 * Schema checks of the built-in kinds whose content other clients decode with fixed types:
 * ConfigMap, Secret, Namespace, Lease, Event and the RBAC kinds (issue 13, finding 5), so that nothing `kubectl describe`
 * cannot decode is ever stored.
 *
 * Guarantees:
 * - a field of the wrong JSON type is 400 BadRequest, worded as the Go decoder words it
 *   (`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array
 *   into Go struct field ConfigMap.data of type map[string]string`); so is Secret data that is
 *   not base64;
 * - ConfigMap and Secret keys must be valid config keys (422), RBAC rules must name verbs,
 *   bindings a Role or ClusterRole by name and subjects of a known kind by name (422).
 * Namespace, Lease and Event content is checked by namespace.ts, lease.ts and event.ts.
 */
import { ApiError, invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../objects.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { validateEvent } from './event.ts';
import { validateLease } from './lease.ts';
import { validateNamespace } from './namespace.ts';

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function goType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function undecodable(kind: string, field: string, value: unknown, expected: string): ApiError {
  return new ApiError(
    400,
    'BadRequest',
    `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${goType(value)} into Go struct field ${kind}.${field} of type ${expected}`,
  );
}

function stringMap(
  kind: string,
  object: KubeObject,
  field: string,
  errors: FieldError[],
): Record<string, string> {
  const value = object[field];
  if (value == null) return {};
  if (!isPlainObject(value)) throw undecodable(kind, field, value, 'map[string]string');
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw undecodable(kind, field, item, 'string');
    if (key.length > 253 || !CONFIG_KEY.test(key)) {
      errors.push(
        invalidValue(
          `${field}[${key}]`,
          key,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        ),
      );
    }
  }
  return value as Record<string, string>;
}

function stringList(kind: string, rule: Record<string, unknown>, field: string): string[] {
  const value = rule[field];
  if (value == null) return [];
  if (!Array.isArray(value)) throw undecodable(kind, `rules.${field}`, value, '[]string');
  const bad: unknown = (value as unknown[]).find((item) => typeof item !== 'string');
  if (bad !== undefined) throw undecodable(kind, `rules.${field}`, bad, 'string');
  return value as string[];
}

function rulesErrors(kind: string, object: KubeObject): FieldError[] {
  const rules = object.rules;
  if (rules == null) return [];
  if (!Array.isArray(rules)) throw undecodable(kind, 'rules', rules, '[]v1.PolicyRule');
  const errors: FieldError[] = [];
  rules.forEach((rule, i) => {
    if (!isPlainObject(rule)) throw undecodable(kind, 'rules', rule, 'v1.PolicyRule');
    const verbs = stringList(kind, rule, 'verbs');
    for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'])
      stringList(kind, rule, field);
    if (verbs.length === 0)
      errors.push(required(`rules[${i}].verbs`, 'verbs must contain at least one value'));
  });
  return errors;
}

function bindingErrors(kind: string, object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const ref = object.roleRef;
  if (!isPlainObject(ref)) throw undecodable(kind, 'roleRef', ref, 'v1.RoleRef');
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') {
    errors.push(notSupported('roleRef.kind', ref.kind ?? '', ['ClusterRole', 'Role']));
  }
  if (typeof ref.name !== 'string' || ref.name === '') errors.push(required('roleRef.name'));
  const subjects = object.subjects;
  if (subjects == null) return errors;
  if (!Array.isArray(subjects)) throw undecodable(kind, 'subjects', subjects, '[]v1.Subject');
  subjects.forEach((subject, i) => {
    if (!isPlainObject(subject)) throw undecodable(kind, 'subjects', subject, 'v1.Subject');
    if (!['User', 'Group', 'ServiceAccount'].includes(subject.kind as string)) {
      errors.push(
        notSupported(`subjects[${i}].kind`, subject.kind ?? '', ['Group', 'ServiceAccount', 'User']),
      );
    }
    if (typeof subject.name !== 'string' || subject.name === '') errors.push(required(`subjects[${i}].name`));
  });
  return errors;
}

/**
 * The field errors of a built-in object (400 for what the Go decoder would refuse); `old` is the
 * stored object on an update.
 */
export function validateBuiltinKind(type: ResourceType, object: KubeObject, old?: KubeObject): FieldError[] {
  if (type.customResource) return [];
  const errors: FieldError[] = [];
  switch (`${type.group}/${type.kind}`) {
    case '/ConfigMap': {
      stringMap(type.kind, object, 'data', errors);
      const binary = stringMap(type.kind, object, 'binaryData', errors);
      for (const [key, value] of Object.entries(binary)) {
        if (!BASE64.test(value)) throw undecodable(type.kind, `binaryData[${key}]`, value, '[]byte (base64)');
      }
      return errors;
    }
    case '/Secret': {
      const data = stringMap(type.kind, object, 'data', errors);
      stringMap(type.kind, object, 'stringData', errors);
      for (const [key, value] of Object.entries(data)) {
        if (!BASE64.test(value)) {
          throw new ApiError(
            400,
            'BadRequest',
            `Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data[${key}]`,
          );
        }
      }
      if (object.type != null && typeof object.type !== 'string')
        throw undecodable(type.kind, 'type', object.type, 'v1.SecretType');
      return errors;
    }
    case '/Namespace':
      return validateNamespace(object);
    case 'coordination.k8s.io/Lease':
      return validateLease(object, type.version);
    case '/Event':
    case 'events.k8s.io/Event':
      return validateEvent(object, type.group, old);
    case 'rbac.authorization.k8s.io/Role':
    case 'rbac.authorization.k8s.io/ClusterRole':
      return rulesErrors(type.kind, object);
    case 'rbac.authorization.k8s.io/RoleBinding':
    case 'rbac.authorization.k8s.io/ClusterRoleBinding':
      return bindingErrors(type.kind, object);
    default:
      return errors;
  }
}
