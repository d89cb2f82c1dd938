/**
 * ClusterResourceBinding (`crb`, propagation.md §4.2): as ResourceBinding, for a cluster-scoped
 * template; it has no namespace.
 *
 * Guarantees: named `bindingName(kind, name)`; carries its own permanent-id label and finalizer.
 */
import { CloneType } from '@sinclair/typebox';
import { defineKind } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { BINDING_VERSION, bindingColumns, BindingSchema, WORK_GROUP } from './binding-spec.ts';

export const CRB_PERMANENT_ID_LABEL = 'clusterresourcebinding.karmada.io/permanent-id';
/** On Works and member copies: the binding they come from. */
export const CRB_NAME_ANNOTATION = 'clusterresourcebinding.karmada.io/name';
export const CRB_FINALIZER = 'karmada.io/cluster-resource-binding-controller';

export const ClusterResourceBindingSchema = CloneType(BindingSchema, {
  description:
    'A cluster-scoped template bound to the policy claiming it and the clusters it is scheduled to.',
});
export type ClusterResourceBinding = TypedObject<typeof ClusterResourceBindingSchema>;

export const clusterResourceBindingKind = defineKind({
  group: WORK_GROUP,
  version: BINDING_VERSION,
  kind: 'ClusterResourceBinding',
  plural: 'clusterresourcebindings',
  scope: 'Cluster',
  shortNames: ['crb'],
  statusSubresource: true,
  printerColumns: bindingColumns,
  schema: ClusterResourceBindingSchema,
});
