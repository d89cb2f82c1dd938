/**
 * NetworkBinding (apis.md §1.3): a consumer's declaration, on the hub in the hub namespace of a
 * project namespace, that it needs the project's network in a location.
 *
 * Guarantees: `spec.network` and `spec.location` never change after creation (422 with
 * "spec.network is immutable" / "spec.location is immutable"); `spec.consumer` may. A new
 * binding is seeded `Ready=Unknown`. The reasons and messages are those the presence controller
 * writes (controllers.md §5).
 */
import { CloneType, Type } from '@sinclair/typebox';
import { Conditions, seededStatus } from '../../common/condition.ts';
import { ageColumn, conditionReasonColumn, conditionStatusColumn, defineKind } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { LocationReference, NetworkContextRef, NetworkRef } from '../../common/refs.ts';
import { immutable, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';

export const NetworkBindingConditionType = { Ready: 'Ready' } as const;

export const NetworkBindingReason = {
  Pending: 'Pending',
  ProjectUnresolved: 'ProjectUnresolved',
  NetworkNotFound: 'NetworkNotFound',
  LocationNotAvailable: 'LocationNotAvailable',
  NetworkContextNameConflict: 'NetworkContextNameConflict',
  NetworkContextNotReady: 'NetworkContextNotReady',
  NetworkContextReady: 'NetworkContextReady',
} as const;

export const networkBindingMessages = {
  projectNotEngaged: (project: string) => `Project "${project}" is not engaged by this operator`,
  misdirected: (network: string, given: string, project: string, projectNamespace: string) =>
    `Network "${network}" was not found in namespace "${given}" of project "${project}": bindings in this namespace can only use networks in namespace "${projectNamespace}"`,
  locationNotAvailable: (project: string, location: string) =>
    `Project "${project}" has no location binding for location "${location}"`,
  networkNotFound: (network: string, projectNamespace: string, project: string) =>
    `Network "${network}" was not found in namespace "${projectNamespace}" of project "${project}"`,
  networkDeleting: (network: string, projectNamespace: string, project: string) =>
    `Network "${network}" in namespace "${projectNamespace}" of project "${project}" is being deleted`,
  nameConflict: (
    context: string,
    projectNamespace: string,
    project: string,
    holder: { network: string; location: string },
    pair: { network: string; location: string },
  ) =>
    `Network context "${context}" in namespace "${projectNamespace}" of project "${project}" already serves network "${holder.network}" in location "${holder.location}"; network "${pair.network}" in location "${pair.location}" derives the same name`,
  contextDeleting: 'Network context is being deleted.',
  contextOfEarlierNetwork: 'Network context belongs to an earlier network of the same name.',
  contextReady: 'Network context is ready.',
  contextNotReady: 'Network context is not ready.',
};

export const BINDING_NETWORK_IMMUTABLE_MESSAGE = 'spec.network is immutable';
export const BINDING_LOCATION_IMMUTABLE_MESSAGE = 'spec.location is immutable';

export const NetworkBindingSpec = Type.Object({
  network: CloneType(NetworkRef, {
    description:
      'The Network, by name, in the project namespace; a namespace, when set, must be the project namespace.',
    ...validations(immutable(BINDING_NETWORK_IMMUTABLE_MESSAGE)),
  }),
  location: CloneType(LocationReference, validations(immutable(BINDING_LOCATION_IMMUTABLE_MESSAGE))),
  consumer: Type.Optional(
    Type.Object(
      {
        apiGroup: Type.Optional(Type.String({ description: 'Empty: the core group.' })),
        kind: Type.String(),
        name: Type.String(),
      },
      { description: 'Informational; no controller reads it.' },
    ),
  ),
});

export const NetworkBindingStatus = Type.Object(
  {
    networkContextRef: Type.Optional(NetworkContextRef),
    conditions: Type.Optional(Conditions()),
  },
  { default: seededStatus([NetworkBindingConditionType.Ready]) },
);

export const NetworkBindingSchema = Type.Object(
  { spec: NetworkBindingSpec, status: Type.Optional(NetworkBindingStatus) },
  { description: "A consumer's declaration that it needs a project's network in a location." },
);
export type NetworkBinding = TypedObject<typeof NetworkBindingSchema>;

export const networkBindingKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'NetworkBinding',
  plural: 'networkbindings',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [ageColumn(), conditionStatusColumn('Ready'), conditionReasonColumn('Reason', 'Ready')],
  schema: NetworkBindingSchema,
});
