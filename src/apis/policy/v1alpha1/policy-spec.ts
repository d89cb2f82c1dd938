/**
 * The spec PropagationPolicy and ClusterPropagationPolicy share (apis.md §6, propagation.md
 * §1.1), and the `placement` a ResourceBinding copies verbatim.
 *
 * Guarantees: the honoured fields are declared with Karmada's defaults (`priority: 0`,
 * `conflictResolution: Abort`, `preserveResourcesOnDeletion: false`); every other Karmada field
 * is kept as written, so a policy written for Karmada is accepted unchanged.
 */
import { CloneType, Type, type Static } from '@sinclair/typebox';
import { LabelSelector } from '../../common/label-selector.ts';
import { Int32, PRESERVE_UNKNOWN, StringEnum } from '../../common/schema.ts';

export const POLICY_GROUP = 'policy.karmada.io';
export const POLICY_VERSION = 'v1alpha1';

export const ConflictResolution = StringEnum(['Abort', 'Overwrite']);

export const ResourceSelector = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  namespace: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  labelSelector: Type.Optional(LabelSelector),
});
export type ResourceSelector = Static<typeof ResourceSelector>;

const FieldSelector = Type.Object({
  matchExpressions: Type.Optional(
    Type.Array(
      Type.Object({
        key: Type.String({ description: 'provider, region or zone.' }),
        operator: Type.String(),
        values: Type.Optional(Type.Array(Type.String())),
      }),
    ),
  ),
});

const affinityFields = {
  labelSelector: Type.Optional(LabelSelector),
  fieldSelector: Type.Optional(FieldSelector),
  clusterNames: Type.Optional(Type.Array(Type.String())),
  exclude: Type.Optional(Type.Array(Type.String())),
};

export const ClusterAffinity = Type.Object(affinityFields);

export const Placement = Type.Object(
  {
    clusterAffinity: Type.Optional(ClusterAffinity),
    clusterAffinities: Type.Optional(
      Type.Array(
        Type.Object(
          { affinityName: Type.String({ minLength: 1, maxLength: 32 }), ...affinityFields },
          PRESERVE_UNKNOWN,
        ),
      ),
    ),
  },
  PRESERVE_UNKNOWN,
);
export type Placement = Static<typeof Placement>;

export const PolicySpec = Type.Object(
  {
    resourceSelectors: Type.Array(ResourceSelector, {
      description: 'A template is selected when any entry matches; an empty list selects nothing.',
    }),
    placement: Type.Optional(Placement),
    priority: Type.Optional(Int32({ default: 0 })),
    conflictResolution: Type.Optional(CloneType(ConflictResolution, { default: 'Abort' })),
    preserveResourcesOnDeletion: Type.Optional(Type.Boolean({ default: false })),
  },
  PRESERVE_UNKNOWN,
);
export type PolicySpec = Static<typeof PolicySpec>;

/** Recorded on a policy that sets both `clusterAffinity` and `clusterAffinities`. */
export const INVALID_PLACEMENT_EVENT = 'InvalidPlacement';
