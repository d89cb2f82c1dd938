/**
 * Project (apis.md §3): a Milo project, cluster-scoped in the platform plane. netpresence reads
 * only whether its `Ready` condition is True: a Ready project's plane is engaged, any other
 * state disengages it.
 *
 * Guarantees: a new Project is seeded `Ready=Unknown`; its plane is served at
 * `projectControlPlanePath(project)` (control-plane-path.ts).
 */
import { Type } from '@sinclair/typebox';
import { Conditions, seededStatus } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { StringEnum } from '../../common/schema.ts';

export const RESOURCEMANAGER_GROUP = 'resourcemanager.miloapis.com';
export const RESOURCEMANAGER_VERSION = 'v1alpha1';

export const ProjectConditionType = { Ready: 'Ready', ResourceCleanup: 'ResourceCleanup' } as const;

/** Reasons the platform uses on `Ready` (and the `Cleanup…` family). */
export const ProjectReason = {
  Ready: 'Ready',
  Provisioning: 'Provisioning',
  ProjectNameConflict: 'ProjectNameConflict',
} as const;

export const ProjectSpec = Type.Object({
  ownerRef: Type.Object({ kind: StringEnum(['Organization']), name: Type.String() }),
});

export const ProjectStatus = Type.Object(
  { conditions: Type.Optional(Conditions()) },
  { default: seededStatus([ProjectConditionType.Ready]) },
);

export const ProjectSchema = Type.Object(
  { spec: ProjectSpec, status: Type.Optional(ProjectStatus) },
  { description: 'A Milo project; its control plane is the project plane.' },
);
export type Project = TypedObject<typeof ProjectSchema>;

export const projectKind = defineKind({
  group: RESOURCEMANAGER_GROUP,
  version: RESOURCEMANAGER_VERSION,
  kind: 'Project',
  plural: 'projects',
  scope: 'Cluster',
  statusSubresource: true,
  printerColumns: [conditionStatusColumn('Ready'), ageColumn()],
  schema: ProjectSchema,
});
