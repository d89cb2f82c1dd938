/**
 * RBAC: decides what an identity may do in one plane from the plane's own Roles, ClusterRoles,
 * RoleBindings and ClusterRoleBindings, with the semantics of Kubernetes' RBAC authorizer
 * (rbac.authorization.k8s.io/v1), and words the 403 as the Kubernetes API server does.
 *
 * Guarantees:
 * - an identity in `system:masters` is allowed everything, as Kubernetes' privileged-group
 *   authorizer allows it before RBAC is consulted;
 * - otherwise a request is allowed only by a rule of a role bound to the identity: a
 *   ClusterRoleBinding grants its ClusterRole everywhere, a RoleBinding grants its Role or
 *   ClusterRole inside the binding's namespace only. Non-resource requests (and resource requests
 *   without a namespace) are decided by ClusterRoleBindings alone, so `nonResourceURLs` grant
 *   nothing through a RoleBinding;
 * - subjects match as in Kubernetes: User by name, Group by membership (every identity counts as
 *   `system:authenticated`), ServiceAccount as the user `system:serviceaccount:<ns>:<name>` (the
 *   namespace defaults to the RoleBinding's); a User subject with that name matches as well;
 * - rules match as in Kubernetes' `RuleAllows`: `*` for verbs, groups and resources; `""` is the
 *   core group; a subresource is granted by `r/sub`, or by star-slash-`sub` for every resource,
 *   never by `r` alone, and `r/*` names only a subresource literally called `*`; `resourceNames`,
 *   when present, match only requests naming one of them (so never list, watch or create);
 *   `nonResourceURLs` match exactly, or as a prefix when they end in `*`;
 * - every call sees the objects stored at that moment: the index of bindings is rebuilt, scope by
 *   scope, after a write to the RBAC objects of that scope (the log tells of each as it commits):
 *   a Role or RoleBinding drops its namespace's index only, a ClusterRoleBinding the cluster-wide
 *   one, a ClusterRole (which RoleBindings may name too) every index. So a write costs the next
 *   call that needs its scope one pass over that scope's objects — a plane with a RoleBinding per
 *   tenant namespace (the hub) is not re-read whole as tenants come — and any other call costs
 *   only the bindings that name the identity; a decision is remembered until the next write to
 *   any RBAC object of the plane (`Policy.decided`), once for every namespace that holds no Role
 *   or RoleBinding (there, as at the cluster scope, ClusterRoleBindings alone decide);
 * - `reason` is Kubernetes' own: `RBAC: allowed by …` when allowed, the roles a binding naming
 *   the identity points to but that do not exist when denied, empty otherwise.
 *
 * Caveats: ClusterRole aggregation (`aggregationRule`) is not evaluated — a ClusterRole grants the
 * rules it stores. RBAC never denies explicitly, so there is no "denied" decision, only "not
 * allowed". `roleRef.apiGroup` and subject `apiGroup` are ignored, as Kubernetes ignores them.
 */
import { internString } from '../../apis/common/interned-strings.ts';
import { ApiError, forbidden } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../objects.ts';
import type { RevisionLog } from '../storage/revision-log.ts';
import { AUTHENTICATED_GROUP, type Identity } from './tokens.ts';

export const SUPERUSER_GROUP = 'system:masters';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const CLUSTER_ROLES = `${RBAC_GROUP}/clusterroles`;
const ROLES = `${RBAC_GROUP}/roles`;
const CLUSTER_ROLE_BINDINGS = `${RBAC_GROUP}/clusterrolebindings`;
const ROLE_BINDINGS = `${RBAC_GROUP}/rolebindings`;
const RBAC_RESOURCES = new Set([CLUSTER_ROLES, ROLES, CLUSTER_ROLE_BINDINGS, ROLE_BINDINGS]);

export interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  resourceRequest: boolean;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

export class RbacAuthorizer {
  readonly #log: Pick<RevisionLog, 'list'>;
  /** The index of the RBAC objects, each scope's dropped when one of its objects is written. */
  readonly #policy: Policy;

  constructor(log: Pick<RevisionLog, 'list' | 'subscribeAll'>) {
    this.#log = log;
    this.#policy = new Policy(log);
    log.subscribeAll((event) => {
      if (RBAC_RESOURCES.has(event.resource)) this.#policy.written(event.resource, event.key);
    });
  }

  authorize(identity: Identity, attributes: RequestAttributes): Decision {
    if (identity.groups.includes(SUPERUSER_GROUP)) return { allowed: true, reason: '' };
    return this.#policy.decided(identity, attributes);
  }

  /** How many decisions (and identities in a scope) the authorizer remembers now. */
  get remembered(): number {
    return this.#policy.remembered;
  }

  /**
   * Every rule `identity` holds where `namespace` is in scope (ClusterRoleBindings, and the
   * RoleBindings of `namespace`), in binding order, with the reasons bindings naming it did not
   * resolve (a missing role, say): what Kubernetes' RuleResolver.RulesFor answers, for
   * SelfSubjectRulesReview and escalation checks. A superuser holds every rule: `superuser` is
   * true and `rules` empty.
   */
  rulesFor(
    identity: Identity,
    namespace: string,
  ): { superuser: boolean; rules: PolicyRule[]; errors: string[] } {
    if (identity.groups.includes(SUPERUSER_GROUP)) return { superuser: true, rules: [], errors: [] };
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const { binding } of this.#policy.holdersOf(identity, namespace)) {
      if (binding.unresolved) errors.push(binding.unresolved);
      else rules.push(...binding.rules);
    }
    return { superuser: false, rules, errors: [...new Set(errors)] };
  }

  /** The rules of the role `roleRef` names (a Role in `namespace`, or a ClusterRole); undefined if missing. */
  roleRules(kind: string, name: string, namespace: string): PolicyRule[] | undefined {
    const plural = kind === 'ClusterRole' ? 'clusterroles' : kind === 'Role' ? 'roles' : undefined;
    if (!plural) return undefined;
    const key = plural === 'roles' ? `${namespace}/${name}` : `/${name}`;
    const role = this.#log
      .list(`${RBAC_GROUP}/${plural}`)
      .find((object) => `${text(object.metadata.namespace)}/${text(object.metadata.name)}` === key);
    return role && rulesOf(role);
  }
}

/**
 * The 403 Kubernetes sends for a refused request (k8s.io/apiserver responsewriters.Forbidden):
 * `configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the
 * namespace "default"`, `… at the cluster scope` without a namespace, and
 * `forbidden: User "u" cannot get path "/healthz"` for a non-resource request. A non-empty
 * `reason` (the authorizer's) is appended after `: `.
 */
export function forbiddenError(identity: Identity, attributes: RequestAttributes, reason = ''): ApiError {
  const refusal = escapeHtml(refusalOf(identity.name, attributes));
  const detail = reason ? `${refusal}: ${reason}` : refusal;
  if (!attributes.resourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${detail}`);
  return forbidden({ group: attributes.group, resource: attributes.resource }, attributes.name ?? '', detail);
}

function refusalOf(user: string, attributes: RequestAttributes): string {
  if (!attributes.resourceRequest) {
    return `User ${quote(user)} cannot ${attributes.verb} path ${quote(attributes.path ?? '')}`;
  }
  const scope = attributes.namespace
    ? `in the namespace ${quote(attributes.namespace)}`
    : 'at the cluster scope';
  return `User ${quote(user)} cannot ${attributes.verb} resource ${quote(combinedResource(attributes))} in API group ${quote(attributes.group)} ${scope}`;
}

/** Kubernetes escapes these so that an error never reads as HTML. */
function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Go's `%q` for the strings these messages quote. */
function quote(text: string): string {
  return JSON.stringify(text);
}

/** Go's errors.NewAggregate: one message alone, several deduplicated inside brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

function combinedResource(attributes: RequestAttributes): string {
  return attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
}

/** The namespace whose RoleBindings count: none for non-resource and cluster-wide requests. */
function scopeOf(attributes: RequestAttributes): string {
  return attributes.resourceRequest ? (attributes.namespace ?? '') : '';
}

/** Not allowed, with no binding naming the identity left unresolved: the most common refusal. */
const NOT_ALLOWED: Decision = Object.freeze({ allowed: false, reason: '' });

/**
 * Kubernetes' decision: the first binding (in order) with a rule that allows the request. An
 * allowed decision depends only on the holder that allows it, so each holder makes its one
 * decision once and every request it allows shares it (frozen: nobody may change what others
 * read).
 */
function decide(holders: Holder[], attributes: RequestAttributes): Decision {
  const unresolved: string[] = [];
  for (const holder of holders) {
    const { binding, subject } = holder;
    if (binding.unresolved) unresolved.push(binding.unresolved);
    else if (binding.rules.some((rule) => ruleAllows(rule, attributes))) {
      return (holder.allows ??= Object.freeze({
        allowed: true,
        reason: `RBAC: allowed by ${binding.source} to ${subject}`,
      }));
    }
  }
  if (unresolved.length === 0) return NOT_ALLOWED;
  return { allowed: false, reason: `RBAC: ${aggregate(unresolved)}` };
}

/** What a decision can depend on besides the holders: all of the request but its namespace. */
function requestKey(attributes: RequestAttributes, withName: boolean): string {
  const { verb, group, resource, subresource = '', path = '', name = '' } = attributes;
  return attributes.resourceRequest
    ? `${verb}\0${group}\0${resource}\0${subresource}${withName ? `\0${name}` : ''}`
    : `${verb}\0\0${path}`;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

function ruleAllows(rule: PolicyRule, attributes: RequestAttributes): boolean {
  if (!rule.verbs.some((verb) => verb === '*' || verb === attributes.verb)) return false;
  if (!attributes.resourceRequest) {
    const path = attributes.path ?? '';
    // `*` alone trims to the empty prefix and so matches every path, as in Kubernetes.
    return rule.nonResourceURLs.some(
      (url) => url === path || (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))),
    );
  }
  const combined = combinedResource(attributes);
  const subresource = attributes.subresource ?? '';
  return (
    rule.apiGroups.some((group) => group === '*' || group === attributes.group) &&
    rule.resources.some(
      (resource) =>
        resource === '*' || resource === combined || (subresource !== '' && resource === `*/${subresource}`),
    ) &&
    (rule.resourceNames.length === 0 || rule.resourceNames.includes(attributes.name ?? ''))
  );
}

/** A binding with its role resolved, or the reason it could not be. */
interface Binding {
  /** `ClusterRoleBinding "b" of ClusterRole "r"`, `RoleBinding "b/ns" of Role "r"`. */
  source: string;
  rules: PolicyRule[];
  unresolved?: string;
}

/** One subject of a binding that names someone; `order` is Kubernetes' visiting order. */
interface Holder {
  binding: Binding;
  order: number;
  subject: string;
  /** The decision of every request this holder is the first to allow, made at the first. */
  allows?: Decision;
}

/** The bindings of one scope (cluster-wide, or one namespace), by the subject they name. */
class SubjectIndex {
  readonly #holders = new Map<string, Holder[]>();
  #next = 0;

  add(object: KubeObject, binding: Binding, namespace: string): void {
    const subjects = Array.isArray(object.subjects) ? object.subjects.filter(isPlainObject) : [];
    for (const subject of subjects) {
      const named = nameOf(subject, namespace);
      if (!named) continue;
      const holders = this.#holders.get(named.key) ?? [];
      holders.push({ binding, order: this.#next++, subject: named.description });
      this.#holders.set(named.key, holders);
    }
  }

  /** Each binding naming the identity once, with its first subject that does, in binding order. */
  holdersOf(identity: Identity): Holder[] {
    const groups = new Set([...identity.groups, AUTHENTICATED_GROUP]);
    const keys = [userKey(identity.name), ...[...groups].map(groupKey)];
    const found = keys.flatMap((key) => this.#holders.get(key) ?? []).sort((a, b) => a.order - b.order);
    return found.filter((holder, i) => i === 0 || found[i - 1].binding !== holder.binding);
  }
}

const userKey = (name: string) => `User:${name}`;
const groupKey = (name: string) => `Group:${name}`;

/** The index key of a subject and how Kubernetes describes it; undefined if it names nobody. */
function nameOf(subject: Record<string, unknown>, bindingNamespace: string) {
  const name = text(subject.name);
  switch (subject.kind) {
    case 'User':
      return { key: userKey(name), description: `User ${quote(name)}` };
    case 'Group':
      return { key: groupKey(name), description: `Group ${quote(name)}` };
    case 'ServiceAccount': {
      const namespace = text(subject.namespace) || bindingNamespace;
      if (!namespace) return undefined;
      return {
        key: userKey(`${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`),
        description: `ServiceAccount ${quote(`${name}/${namespace}`)}`,
      };
    }
    default:
      return undefined;
  }
}

/** The most decisions (and identities in a scope) a plane's authorizer remembers before it starts over. */
export const MAX_REMEMBERED = 50_000;

/** What one identity holds in one scope, and the decisions made from it. */
interface Held {
  /** The identity's groups, in the order its credential lists them. */
  groups: string[];
  holders: Holder[];
  /** Whether a rule of one of the holders names resources: then the name is part of a decision's key. */
  byName: boolean;
  decisions: Map<string, Decision>;
}

/**
 * The RBAC objects of a plane, indexed by scope: the ClusterRoles, the cluster-wide bindings,
 * and each namespace's Roles and bindings, each built when first asked for after a write to it.
 */
class Policy {
  #clusterRoles?: Map<string, PolicyRule[]>;
  #clusterWide?: SubjectIndex;
  readonly #namespaced = new Map<string, SubjectIndex>();
  /**
   * Every namespace that holds (or held) a Role or RoleBinding, so that a request naming any
   * other namespace — one a client made up, say — neither reads the plane nor grows the cache.
   */
  #withRbac?: Set<string>;

  /** By identity name, scope and groups: the holders, whether a rule names resources, the decisions made. */
  readonly #held = new Map<string, Map<string, Held[]>>();
  /** How many decisions (and identities in a scope) `#held` keeps, all told. */
  #decisions = 0;

  constructor(private readonly log: Pick<RevisionLog, 'list'>) {}

  /** Drops what a write to `resource` at `key` (`<namespace>/<name>`) may have changed. */
  written(resource: string, key: string): void {
    this.#forgetDecisions();
    if (resource === CLUSTER_ROLES) {
      this.#clusterRoles = undefined;
      this.#clusterWide = undefined;
      this.#namespaced.clear();
    } else if (resource === CLUSTER_ROLE_BINDINGS) this.#clusterWide = undefined;
    else {
      const namespace = key.slice(0, key.indexOf('/'));
      this.#namespaced.delete(namespace);
      this.#withRbac?.add(namespace);
    }
  }

  /**
   * `decide` for the identity's holders in the request's scope, remembered until an RBAC object
   * of the plane is written (`written` forgets every one). Controllers make the same few requests
   * of the same namespaces over and over; working out the holders and walking their rules for each
   * was 3 % of the server's thread in a 1,000-binding burst (bench/README.md, session 20).
   * A decision is remembered by identity, scope and request, and by the object's name only when a
   * rule the identity holds there names resources (`resourceNames`): every other rule allows or
   * not whatever the name, so the decision is the same for every name. At most
   * `MAX_REMEMBERED` are kept; beyond that they start over.
   */
  decided(identity: Identity, attributes: RequestAttributes): Decision {
    const held = this.#heldBy(identity, this.#decidingScope(scopeOf(attributes)));
    const key = requestKey(attributes, held.byName);
    let decision = held.decisions.get(key);
    if (!decision) {
      decision = decide(held.holders, attributes);
      // Every identity and scope asks the same few requests: one copy of each key serves them all.
      held.decisions.set(internString(key), decision);
      if (++this.#decisions >= MAX_REMEMBERED) this.#forgetDecisions();
    }
    return decision;
  }

  /**
   * What `identity` holds in `scope`. Looked up by name, then scope, then groups, rather than by
   * one key made of them all: a request's identity carries the very strings its credential holds,
   * whose hashes are computed once, where a key built per request is hashed whole every time.
   */
  #heldBy(identity: Identity, scope: string): Held {
    let byScope = this.#held.get(identity.name);
    if (!byScope) this.#held.set(identity.name, (byScope = new Map<string, Held[]>()));
    let inScope = byScope.get(scope);
    if (!inScope) byScope.set(scope, (inScope = []));
    const { groups } = identity;
    let held = inScope.find(
      (candidate) =>
        candidate.groups.length === groups.length &&
        candidate.groups.every((group, i) => group === groups[i]),
    );
    if (!held) {
      const holders = this.holdersOf(identity, scope);
      const byName = holders.some(({ binding }) =>
        binding.rules.some((rule) => rule.resourceNames.length > 0),
      );
      held = { groups: [...groups], holders, byName, decisions: new Map() };
      inScope.push(held);
      if (++this.#decisions >= MAX_REMEMBERED) this.#forgetDecisions();
    }
    return held;
  }

  /**
   * The scope whose bindings decide a request in `scope`: the namespace itself when it holds (or
   * held) a Role or RoleBinding, otherwise the cluster scope, whose ClusterRoleBindings are then
   * all that count there. So an identity's decisions in the namespaces without RBAC objects of
   * their own — every namespace of a project plane or a cell — are remembered once, not once per
   * namespace: a cell's identities act in a namespace per project.
   */
  #decidingScope(scope: string): string {
    return scope && this.#holdsRbac(scope) ? scope : '';
  }

  /** How many decisions (and identities in a scope) are remembered now. */
  get remembered(): number {
    return this.#decisions;
  }

  #forgetDecisions(): void {
    this.#held.clear();
    this.#decisions = 0;
  }

  holdersOf(identity: Identity, namespace: string): Holder[] {
    const clusterWide = this.#clusterWideIndex().holdersOf(identity);
    const local = namespace ? (this.#namespaceIndex(namespace)?.holdersOf(identity) ?? []) : [];
    return local.length > 0 ? [...clusterWide, ...local] : clusterWide;
  }

  #clusterRoleRules(): Map<string, PolicyRule[]> {
    if (!this.#clusterRoles) {
      this.#clusterRoles = new Map();
      for (const role of this.log.list(CLUSTER_ROLES))
        this.#clusterRoles.set(text(role.metadata.name), rulesOf(role));
    }
    return this.#clusterRoles;
  }

  #clusterWideIndex(): SubjectIndex {
    if (!this.#clusterWide) {
      const clusterRoles = this.#clusterRoleRules();
      this.#clusterWide = new SubjectIndex();
      for (const object of this.log.list(CLUSTER_ROLE_BINDINGS)) {
        const source = `ClusterRoleBinding ${quote(text(object.metadata.name))}`;
        this.#clusterWide.add(object, resolve(object, source, clusterRoles, new Map()), '');
      }
    }
    return this.#clusterWide;
  }

  #holdsRbac(namespace: string): boolean {
    this.#withRbac ??= new Set(
      [...this.log.list(ROLES), ...this.log.list(ROLE_BINDINGS)].map((object) =>
        text(object.metadata.namespace),
      ),
    );
    return this.#withRbac.has(namespace);
  }

  #namespaceIndex(namespace: string): SubjectIndex | undefined {
    if (!this.#holdsRbac(namespace)) return undefined;
    let index = this.#namespaced.get(namespace);
    if (!index) {
      const clusterRoles = this.#clusterRoleRules();
      const roles = new Map<string, PolicyRule[]>();
      for (const role of this.log.list(ROLES, namespace)) roles.set(text(role.metadata.name), rulesOf(role));
      index = new SubjectIndex();
      for (const object of this.log.list(ROLE_BINDINGS, namespace)) {
        const source = `RoleBinding ${quote(`${text(object.metadata.name)}/${namespace}`)}`;
        index.add(object, resolve(object, source, clusterRoles, roles), namespace);
      }
      this.#namespaced.set(namespace, index);
    }
    return index;
  }
}

/** A binding's role resolved: a ClusterRole, or a Role of the binding's namespace (`roles`, by name). */
function resolve(
  object: KubeObject,
  source: string,
  clusterRoles: ReadonlyMap<string, PolicyRule[]>,
  roles: ReadonlyMap<string, PolicyRule[]>,
): Binding {
  const roleRef = isPlainObject(object.roleRef) ? object.roleRef : {};
  const kind = text(roleRef.kind);
  const name = text(roleRef.name);
  const described = `${source} of ${kind} ${quote(name)}`;
  if (kind !== 'ClusterRole' && kind !== 'Role') {
    return { source: described, rules: [], unresolved: `unsupported role reference kind: ${quote(kind)}` };
  }
  const rules = kind === 'ClusterRole' ? clusterRoles.get(name) : roles.get(name);
  if (rules) return { source: described, rules };
  return {
    source: described,
    rules: [],
    unresolved: `${kind.toLowerCase()}.${RBAC_GROUP} ${quote(name)} not found`,
  };
}

export function rulesOf(role: KubeObject): PolicyRule[] {
  const rules = Array.isArray(role.rules) ? role.rules.filter(isPlainObject) : [];
  return rules.map((rule) => ({
    verbs: texts(rule.verbs),
    apiGroups: texts(rule.apiGroups),
    resources: texts(rule.resources),
    resourceNames: texts(rule.resourceNames),
    nonResourceURLs: texts(rule.nonResourceURLs),
  }));
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
