/**
 * RBAC escalation prevention, as Kubernetes' RBAC storage does it (issue 13, finding 4): nobody
 * grants through RBAC a permission they do not hold themselves.
 *
 * Guarantees, for writes by a requesting identity (the server's own writes pass):
 * - a Role or ClusterRole may be created or updated (its rules changed) only by an identity that
 *   holds every permission its rules grant — in the role's namespace, or cluster-wide for a
 *   ClusterRole — or that may `escalate` that role, or that is in `system:masters`;
 * - a RoleBinding or ClusterRoleBinding may be created or updated only by an identity that holds
 *   every permission of the role it references, or that may `bind` that role, or that is in
 *   `system:masters`; a binding update that changes only ownerReferences and finalizers (what
 *   the garbage collector writes) is not checked, as in Kubernetes;
 * - a refusal is 403 Forbidden worded as Kubernetes words it:
 *   `user "u" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not
 *   currently held:` followed by each missing permission, one per line, in Go's compact form
 *   (`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`), sorted.
 * Coverage follows Kubernetes' `Covers`: each granted (verb, group, resource, resourceName) or
 * (verb, nonResourceURL) must be matched by a held rule, with `*`, `*`/sub and URL-prefix stars.
 */
import type { AdmissionPlugin, AdmissionRequest } from '../admission/plugins.ts';
import { forbidden } from '../errors.ts';
import { deepEqual, isPlainObject, type KubeObject } from '../objects.ts';
import { resourceRef } from '../resources/resource-type.ts';
import { rulesOf, SUPERUSER_GROUP, type PolicyRule, type RbacAuthorizer } from './rbac.ts';
import { AUTHENTICATED_GROUP, type Identity } from './tokens.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const name = 'RBACEscalationPrevention';

/** One permission: a verb on one group/resource/name, or on one non-resource URL. */
interface Simple {
  verb: string;
  group?: string;
  resource?: string;
  resourceName?: string;
  url?: string;
}

/** Each permission a rule grants, one by one (Kubernetes' BreakdownRule). */
function breakdown(rule: PolicyRule): Simple[] {
  const out: Simple[] = [];
  for (const verb of rule.verbs) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        if (rule.resourceNames.length === 0) out.push({ verb, group, resource });
        for (const resourceName of rule.resourceNames) out.push({ verb, group, resource, resourceName });
      }
    }
    for (const url of rule.nonResourceURLs) out.push({ verb, url });
  }
  return out;
}

function resourceCovers(held: string[], resource: string): boolean {
  if (held.includes('*') || held.includes(resource)) return true;
  const slash = resource.indexOf('/');
  return slash >= 0 && held.includes(`*/${resource.slice(slash + 1)}`);
}

function urlCovers(held: string[], url: string): boolean {
  return held.some((h) => h === url || h === '*' || (h.endsWith('*') && url.startsWith(h.slice(0, -1))));
}

/** Whether `rule` (held) covers `simple` (Kubernetes' ruleCovers). */
function covers(rule: PolicyRule, simple: Simple): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(simple.verb)) return false;
  if (simple.url !== undefined) return urlCovers(rule.nonResourceURLs, simple.url);
  if (!rule.apiGroups.includes('*') && !rule.apiGroups.includes(simple.group!)) return false;
  if (!resourceCovers(rule.resources, simple.resource!)) return false;
  if (rule.resourceNames.length === 0) return true;
  return simple.resourceName !== undefined && rule.resourceNames.includes(simple.resourceName);
}

/** Go's %q of a []string: `["a" "b"]`. */
function quoteList(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** The missing permissions, verbs merged per target, in Go's CompactString form, sorted. */
function describeMissing(missing: Simple[]): string[] {
  const byTarget = new Map<string, { simple: Simple; verbs: string[] }>();
  for (const simple of missing) {
    const key = JSON.stringify([simple.group, simple.resource, simple.resourceName, simple.url]);
    const entry = byTarget.get(key);
    if (entry) {
      if (!entry.verbs.includes(simple.verb)) entry.verbs.push(simple.verb);
    } else byTarget.set(key, { simple, verbs: [simple.verb] });
  }
  const lines = [...byTarget.values()].map(({ simple, verbs }) => {
    const parts: string[] = [];
    if (simple.group !== undefined) parts.push(`APIGroups:${quoteList([simple.group])}`);
    if (simple.resource !== undefined) parts.push(`Resources:${quoteList([simple.resource])}`);
    if (simple.url !== undefined) parts.push(`NonResourceURLs:${quoteList([simple.url])}`);
    if (simple.resourceName !== undefined) parts.push(`ResourceNames:${quoteList([simple.resourceName])}`);
    parts.push(`Verbs:${quoteList(verbs)}`);
    return `{${parts.join(', ')}}`;
  });
  return [...new Set(lines)].sort();
}

function roleRefOf(object: KubeObject): { kind: string; name: string } {
  const ref = isPlainObject(object.roleRef) ? object.roleRef : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { kind: text(ref.kind), name: text(ref.name) };
}

/** The object without what the garbage collector may change. */
function withoutGcFields(object: KubeObject): KubeObject {
  const {
    ownerReferences: _o,
    finalizers: _f,
    managedFields: _m,
    resourceVersion: _r,
    ...metadata
  } = object.metadata;
  return { ...object, metadata };
}

export function escalationPrevention(authorizer: RbacAuthorizer): AdmissionPlugin {
  return {
    name,
    admit(request) {
      const { type, operation, user } = request;
      if (type.group !== RBAC_GROUP || operation === 'DELETE' || user === undefined) return request.object;
      const identity: Identity = { name: user, groups: request.groups ?? [] };
      if (identity.groups.includes(SUPERUSER_GROUP)) return request.object;
      const namespace = request.object.metadata.namespace ?? '';
      const objectName = request.object.metadata.name ?? '';
      const allowedTo = (verb: string, resource: string, roleName: string, ns: string) =>
        authorizer.authorize(identity, {
          verb,
          group: RBAC_GROUP,
          resource,
          namespace: ns || undefined,
          name: roleName,
          resourceRequest: true,
        }).allowed;
      let granted: PolicyRule[];
      switch (type.plural) {
        case 'roles':
        case 'clusterroles': {
          if (operation === 'UPDATE' && deepEqual(request.object.rules, request.old?.rules))
            return request.object;
          if (allowedTo('escalate', type.plural, objectName, namespace)) return request.object;
          granted = rulesOf(request.object);
          break;
        }
        case 'rolebindings':
        case 'clusterrolebindings': {
          if (
            operation === 'UPDATE' &&
            request.old &&
            deepEqual(withoutGcFields(request.object), withoutGcFields(request.old))
          ) {
            return request.object;
          }
          const ref = roleRefOf(request.object);
          const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
          if (allowedTo('bind', refResource, ref.name, namespace)) return request.object;
          const rules = authorizer.roleRules(ref.kind, ref.name, namespace);
          if (!rules) {
            throw forbidden(
              resourceRef(type),
              objectName,
              `${ref.kind.toLowerCase()}s.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found`,
            );
          }
          granted = rules;
          break;
        }
        default:
          return request.object;
      }
      confirmNoEscalation(request, authorizer, identity, namespace, granted);
      return request.object;
    },
  };
}

function confirmNoEscalation(
  request: AdmissionRequest,
  authorizer: RbacAuthorizer,
  identity: Identity,
  namespace: string,
  granted: PolicyRule[],
): void {
  const held = authorizer.rulesFor(identity, namespace);
  const missing = granted
    .flatMap(breakdown)
    .filter((simple) => !held.rules.some((rule) => covers(rule, simple)));
  if (missing.length === 0) return;
  const groups = identity.groups.includes(AUTHENTICATED_GROUP)
    ? identity.groups
    : [...identity.groups, AUTHENTICATED_GROUP];
  let message =
    `user ${JSON.stringify(identity.name)} (groups=${quoteList(groups)}) is attempting to grant RBAC permissions not currently held:\n` +
    describeMissing(missing).join('\n');
  if (held.errors.length > 0) message += `; resolution errors: [${held.errors.join(', ')}]`;
  throw forbidden(resourceRef(request.type), request.object.metadata.name ?? '', message);
}
