/**
 * What ResourceBinding and ClusterResourceBinding share (propagation.md §4.2): the spec the
 * detector and scheduler write, the status the scheduler and status controller write, their
 * conditions with Karmada's reasons and messages, and the binding name of §4.1.
 *
 * Guarantees: declares the fields propagation.md names and keeps every other Karmada field as
 * written. `bindingName` is Karmada's: `<name with : as .>-<kind>`, lower-cased.
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn } from '../../common/kind.ts';
import { Int32, Int64, PRESERVE_UNKNOWN, StringEnum } from '../../common/schema.ts';
import { ConflictResolution, Placement } from '../../policy/v1alpha1/policy-spec.ts';

export const WORK_GROUP = 'work.karmada.io';
export const BINDING_VERSION = 'v1alpha2';

export const BindingConditionType = { Scheduled: 'Scheduled', FullyApplied: 'FullyApplied' } as const;

export const BindingReason = {
  Success: 'Success',
  NoClusterFit: 'NoClusterFit',
  SchedulerError: 'SchedulerError',
  FullyAppliedSuccess: 'FullyAppliedSuccess',
  FullyAppliedFailed: 'FullyAppliedFailed',
} as const;

export const bindingMessages = {
  scheduled: 'Binding has been scheduled successfully.',
  /** `reasons`: `<count> <reason>` entries, sorted as strings, or `no cluster exists`. */
  noClusterFit: (clusters: number, reasons: string) => `0/${clusters} clusters are available: ${reasons}.`,
  fullyApplied: 'All works have been successfully applied',
  notFullyApplied: 'Failed to apply all works, see status.aggregatedStatus for details',
};

/** The filters' reasons a NoClusterFit message counts, in the order they are checked. */
export const noClusterFitReasons = {
  affinity: 'cluster(s) did not match the placement cluster affinity constraint',
  notReady: 'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}',
  unreachable: 'cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoSchedule}',
  noCluster: 'no cluster exists',
};

/** The JSON of the `spec.placement` last scheduled, on every binding. */
export const APPLIED_PLACEMENT_ANNOTATION = 'policy.karmada.io/applied-placement';

/** `<template name with every : as .>-<kind>`, lower-cased (an RB in the template's namespace). */
export function bindingName(kind: string, name: string): string {
  return `${name.replaceAll(':', '.')}-${kind}`.toLowerCase();
}

export const BindingSpec = Type.Object(
  {
    resource: Type.Object(
      {
        apiVersion: Type.String(),
        kind: Type.String(),
        namespace: Type.Optional(Type.String()),
        name: Type.String(),
        uid: Type.Optional(Type.String()),
        resourceVersion: Type.Optional(Type.String()),
      },
      PRESERVE_UNKNOWN,
    ),
    placement: Type.Optional(Placement),
    clusters: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), replicas: Type.Optional(Int32()) }, PRESERVE_UNKNOWN)),
    ),
    conflictResolution: Type.Optional(ConflictResolution),
    preserveResourcesOnDeletion: Type.Optional(Type.Boolean()),
  },
  PRESERVE_UNKNOWN,
);

export const BindingStatus = Type.Object(
  {
    schedulerObservedGeneration: Type.Optional(Int64()),
    schedulerObservingAffinityName: Type.Optional(Type.String()),
    lastScheduledTime: Type.Optional(Type.String({ format: 'date-time' })),
    conditions: Type.Optional(Conditions()),
    aggregatedStatus: Type.Optional(
      Type.Array(
        Type.Object(
          {
            clusterName: Type.String(),
            applied: Type.Optional(Type.Boolean()),
            appliedMessage: Type.Optional(Type.String()),
            health: Type.Optional(StringEnum(['Healthy', 'Unhealthy', 'Unknown'])),
          },
          PRESERVE_UNKNOWN,
        ),
      ),
    ),
  },
  PRESERVE_UNKNOWN,
);

/** Karmada's columns: SCHEDULED, FULLYAPPLIED, AGE. */
export const bindingColumns = [
  conditionStatusColumn('Scheduled'),
  conditionStatusColumn('FullyApplied'),
  ageColumn(),
];

export const BindingSchema = Type.Object({ spec: BindingSpec, status: Type.Optional(BindingStatus) });
