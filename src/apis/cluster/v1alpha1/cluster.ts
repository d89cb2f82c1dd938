/**
 * Cluster (apis.md §5, propagation.md §1.2): a Karmada member cluster on the hub — a cell.
 * Only the fields netpresence and the propagation engine read are declared; every other
 * Karmada field is kept as written and ignored.
 *
 * Guarantees: an absent `spec.syncMode` counts as Push; a cluster serving a
 * location carries the label `topology.datum.net/location=<location>`. The `Ready` reasons and
 * messages are those a standalone propagation engine writes.
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { PRESERVE_UNKNOWN, StringEnum } from '../../common/schema.ts';

export const CLUSTER_GROUP = 'cluster.karmada.io';
export const CLUSTER_VERSION = 'v1alpha1';

export const ClusterConditionType = { Ready: 'Ready' } as const;

export const ClusterReason = {
  ClusterReady: 'ClusterReady',
  ClusterNotReady: 'ClusterNotReady',
  ClusterNotReachable: 'ClusterNotReachable',
} as const;

export const clusterMessages = {
  ready: 'cluster is healthy and ready to accept workloads',
  notReady: 'cluster is reachable but health endpoint responded without ok',
  notReachable: 'cluster is not reachable',
};

export const CLUSTER_CONTROLLER_FINALIZER = 'karmada.io/cluster-controller';

export const ClusterSpec = Type.Object(
  {
    syncMode: Type.Optional(
      StringEnum(['Push', 'Pull'], {
        description: 'Absent counts as Push; a Pull cluster is scheduled but never applied to by the engine.',
      }),
    ),
    provider: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    zones: Type.Optional(Type.Array(Type.String())),
    apiEndpoint: Type.Optional(Type.String()),
    secretRef: Type.Optional(Type.Object({ namespace: Type.String(), name: Type.String() })),
    insecureSkipTLSVerification: Type.Optional(Type.Boolean()),
    proxyURL: Type.Optional(Type.String()),
  },
  PRESERVE_UNKNOWN,
);

export const ClusterStatus = Type.Object({ conditions: Type.Optional(Conditions()) }, PRESERVE_UNKNOWN);

export const ClusterSchema = Type.Object(
  { spec: ClusterSpec, status: Type.Optional(ClusterStatus) },
  { description: 'A member cluster of the hub: a cell.' },
);
export type Cluster = TypedObject<typeof ClusterSchema>;

export const clusterKind = defineKind({
  group: CLUSTER_GROUP,
  version: CLUSTER_VERSION,
  kind: 'Cluster',
  plural: 'clusters',
  scope: 'Cluster',
  statusSubresource: true,
  printerColumns: [fieldColumn('Mode', '.spec.syncMode'), conditionStatusColumn('Ready'), ageColumn()],
  schema: ClusterSchema,
});
