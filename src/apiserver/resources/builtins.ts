/**
 * The built-in kinds every plane serves: core Namespace, ConfigMap, Secret and Event,
 * events.k8s.io Event, coordination.k8s.io Lease, the RBAC kinds, and
 * apiextensions.k8s.io CustomResourceDefinition (whose rules live in crd.ts).
 *
 * Guarantees: Namespaces get the `kubernetes.io/metadata.name` label, the `kubernetes`
 * finalizer and phase Active on create, and carry no generation; a Secret's `stringData` is
 * merged into `data` on write and never returned; the kinds kubectl compiles in accept
 * strategic merge patch, the others do not. The schemas of the kinds stored here (all but the CRD
 * kind and the reviews) are closed like their Go types: schema admission drops, warns about or
 * refuses (per `fieldValidation`) every field they do not declare.
 */
import { Buffer } from 'node:buffer';
import { objectField, stringOf, type KubeObject } from '../objects.ts';
import { objectMetaStrategy } from '../patch/strategic-merge-patch.ts';
import { builtinColumns, defaultColumns } from '../table/table.ts';
import { customResourceDefinitionType } from './crd.ts';
import { coreToEvents, eventsToCore } from './event-conversion.ts';
import { STATUS_SUBRESOURCE, type ResourceType } from './resource-type.ts';

const openObject = (description: string, properties: Record<string, unknown> = {}) => ({
  type: 'object',
  description,
  properties,
  'x-kubernetes-preserve-unknown-fields': true,
});

/** A Go struct: fields it does not declare are unknown (dropped, or refused under Strict). */
const closedObject = (description: string, properties: Record<string, unknown>) => ({
  type: 'object',
  description,
  properties,
});

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const time = { type: 'string', format: 'date-time' };
const strings = { type: 'array', items: str };

const objectReference = closedObject(
  'ObjectReference contains enough information to let you inspect or modify the referred object.',
  {
    kind: str,
    namespace: str,
    name: str,
    uid: str,
    apiVersion: str,
    resourceVersion: str,
    fieldPath: str,
  },
);

const labelSelector = closedObject('A label query over a set of resources.', {
  matchLabels: { type: 'object', additionalProperties: str },
  matchExpressions: {
    type: 'array',
    items: closedObject('A label selector requirement.', { key: str, operator: str, values: strings }),
  },
});

const stringMap = (description: string) => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

function builtin(
  fields: Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schema'> &
    Partial<ResourceType>,
): ResourceType {
  return {
    singular: fields.kind.toLowerCase(),
    listKind: `${fields.kind}List`,
    shortNames: [],
    categories: [],
    storage: `${fields.group}/${fields.plural}`,
    subresources: [],
    statusSubresource: false,
    hasGeneration: true,
    requireResourceVersionOnUpdate: false,
    nameRule: 'subdomain',
    columns: builtinColumns[fields.kind] ?? defaultColumns,
    ...fields,
  };
}

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const namespaces = builtin({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  subresources: [STATUS_SUBRESOURCE, { name: 'finalize', verbs: ['update'] }],
  statusSubresource: true,
  hasGeneration: false,
  nameRule: 'label',
  strategicMerge: objectMetaStrategy,
  schema: closedObject('Namespace provides a scope for Names.', {
    spec: closedObject('NamespaceSpec describes the attributes on a Namespace.', { finalizers: strings }),
    status: closedObject('NamespaceStatus is information about the current status of a Namespace.', {
      phase: str,
      conditions: {
        type: 'array',
        items: closedObject('NamespaceCondition contains details about the state of a namespace.', {
          type: str,
          status: str,
          lastTransitionTime: time,
          reason: str,
          message: str,
        }),
      },
    }),
  }),
  selectableFields: { 'status.phase': (o) => stringOf(objectField(o, 'status').phase) },
  prepareForCreate(object) {
    const name = object.metadata.name!;
    const spec = objectField(object, 'spec');
    return {
      ...object,
      metadata: { ...object.metadata, labels: { ...object.metadata.labels, [NAMESPACE_NAME_LABEL]: name } },
      spec: { ...spec, finalizers: spec.finalizers ?? ['kubernetes'] },
      status: { phase: 'Active' },
    };
  },
  prepareForUpdate(object, old) {
    return {
      ...object,
      metadata: {
        ...object.metadata,
        labels: { ...object.metadata.labels, [NAMESPACE_NAME_LABEL]: old.metadata.name! },
      },
    };
  },
});

const configMaps = builtin({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  strategicMerge: objectMetaStrategy,
  schema: closedObject('ConfigMap holds configuration data for pods to consume.', {
    data: stringMap('Data contains the configuration data.'),
    binaryData: stringMap('BinaryData contains the binary data, base64 encoded.'),
    immutable: bool,
  }),
});

const secrets = builtin({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  strategicMerge: objectMetaStrategy,
  schema: closedObject('Secret holds secret data of a certain type.', {
    data: stringMap('Data contains the secret data, base64 encoded.'),
    stringData: stringMap('stringData allows specifying non-binary secret data in string form. Write only.'),
    type: str,
    immutable: bool,
  }),
  toStorage: mergeStringData,
});

/** `stringData` is write-only: merged into `data` (base64) and dropped; `type` defaults to Opaque. */
function mergeStringData(object: KubeObject): KubeObject {
  const { stringData, ...rest } = object as KubeObject & { stringData?: Record<string, string> };
  const data = { ...(rest.data as Record<string, string> | undefined) };
  for (const [key, value] of Object.entries(stringData ?? {})) {
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  const out: KubeObject = { ...rest, type: rest.type ?? 'Opaque' };
  if (Object.keys(data).length > 0) out.data = data;
  return out;
}

const eventSource = closedObject('EventSource contains information for an event.', {
  component: str,
  host: str,
});
const eventSeries = closedObject('EventSeries contain information on series of events.', {
  count: int,
  lastObservedTime: time,
});

/** core/v1 Event. */
const coreEventSchema = closedObject('Event is a report of an event somewhere in the cluster.', {
  involvedObject: objectReference,
  reason: str,
  message: str,
  source: eventSource,
  firstTimestamp: time,
  lastTimestamp: time,
  count: int,
  type: str,
  eventTime: time,
  series: eventSeries,
  action: str,
  related: objectReference,
  reportingComponent: str,
  reportingInstance: str,
});

/** events.k8s.io/v1 Event: the same object, some fields renamed (event-conversion.ts). */
const eventSchema = closedObject('Event is a report of an event somewhere in the cluster.', {
  eventTime: time,
  series: eventSeries,
  reportingController: str,
  reportingInstance: str,
  action: str,
  reason: str,
  regarding: objectReference,
  related: objectReference,
  note: str,
  type: str,
  deprecatedSource: eventSource,
  deprecatedFirstTimestamp: time,
  deprecatedLastTimestamp: time,
  deprecatedCount: int,
});

const coreEvents = builtin({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  strategicMerge: objectMetaStrategy,
  schema: coreEventSchema,
});

const events = builtin({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  storage: coreEvents.storage,
  schema: eventSchema,
  toStorage: eventsToCore,
  fromStorage: coreToEvents,
});

const leases = builtin({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  schema: closedObject('Lease defines a lease concept.', {
    spec: closedObject('LeaseSpec is a specification of a Lease.', {
      holderIdentity: str,
      leaseDurationSeconds: int,
      acquireTime: time,
      renewTime: time,
      leaseTransitions: int,
      strategy: str,
      preferredHolder: str,
    }),
  }),
});

const policyRules = {
  type: 'array',
  items: closedObject('PolicyRule holds information that describes a policy rule.', {
    verbs: strings,
    apiGroups: strings,
    resources: strings,
    resourceNames: strings,
    nonResourceURLs: strings,
  }),
};

function rbac(
  kind: string,
  plural: string,
  namespaced: boolean,
  properties: Record<string, unknown>,
): ResourceType {
  return builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind,
    plural,
    namespaced,
    nameRule: 'path-segment',
    strategicMerge: objectMetaStrategy,
    schema: closedObject(`${kind} is part of RBAC.`, properties),
  });
}

const subjects = {
  type: 'array',
  items: closedObject('Subject names a user, group or service account.', {
    kind: str,
    apiGroup: str,
    name: str,
    namespace: str,
  }),
};
const roleRef = closedObject('RoleRef contains information that points to the role being used.', {
  apiGroup: str,
  kind: str,
  name: str,
});
const aggregationRule = closedObject('AggregationRule describes how to locate ClusterRoles to aggregate.', {
  clusterRoleSelectors: { type: 'array', items: labelSelector },
});

/** Never stored: a create is answered with the review's verdict (server.ts). */
export const selfSubjectAccessReviews = builtin({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schema: openObject('SelfSubjectAccessReview checks whether the current user can perform an action.', {
    spec: openObject('What to check: resourceAttributes or nonResourceAttributes.'),
  }),
});

/** ServiceAccounts; `token` is the TokenRequest subresource (auth/token-request.ts, server.ts). */
export const serviceAccounts = builtin({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  subresources: [{ name: 'token', verbs: ['create'] }],
  strategicMerge: objectMetaStrategy,
  schema: closedObject('ServiceAccount binds together a name, understood by users, and a principal.', {
    secrets: { type: 'array', items: objectReference },
    imagePullSecrets: {
      type: 'array',
      items: closedObject('LocalObjectReference to a Secret.', { name: str }),
    },
    automountServiceAccountToken: bool,
  }),
});

/** Never stored: a create is answered with the rules the asker holds in a namespace (server.ts). */
export const selfSubjectRulesReviews = builtin({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  namespaced: false,
  verbs: ['create'],
  schema: openObject('SelfSubjectRulesReview enumerates the actions the current user can perform.', {
    spec: openObject('The namespace to evaluate rules in.'),
  }),
});

export const builtinTypes: readonly ResourceType[] = [
  namespaces,
  configMaps,
  secrets,
  coreEvents,
  events,
  leases,
  rbac('Role', 'roles', true, { rules: policyRules }),
  rbac('ClusterRole', 'clusterroles', false, { rules: policyRules, aggregationRule }),
  rbac('RoleBinding', 'rolebindings', true, { subjects, roleRef }),
  rbac('ClusterRoleBinding', 'clusterrolebindings', false, { subjects, roleRef }),
  customResourceDefinitionType(builtin),
  selfSubjectAccessReviews,
  serviceAccounts,
  selfSubjectRulesReviews,
];
