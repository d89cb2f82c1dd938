/**
 * ResourceBinding (`rb`, propagation.md §4.2): the embedded propagation engine's record of one
 * namespaced template, the policy claiming it and the clusters it is scheduled to, in the
 * template's namespace on the hub.
 *
 * Guarantees: named `bindingName(kind, name)`; carries its permanent-id label (a UUID set at
 * creation) and its finalizer; exactly one controller ownerReference, to the template.
 */
import { CloneType } from '@sinclair/typebox';
import { defineKind } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { BINDING_VERSION, bindingColumns, BindingSchema, WORK_GROUP } from './binding-spec.ts';

export const RB_PERMANENT_ID_LABEL = 'resourcebinding.karmada.io/permanent-id';
/** On Works and member copies: the binding they come from. */
export const RB_NAMESPACE_ANNOTATION = 'resourcebinding.karmada.io/namespace';
export const RB_NAME_ANNOTATION = 'resourcebinding.karmada.io/name';
export const RB_FINALIZER = 'karmada.io/binding-controller';

export const ResourceBindingSchema = CloneType(BindingSchema, {
  description: 'A namespaced template bound to the policy claiming it and the clusters it is scheduled to.',
});
export type ResourceBinding = TypedObject<typeof ResourceBindingSchema>;

export const resourceBindingKind = defineKind({
  group: WORK_GROUP,
  version: BINDING_VERSION,
  kind: 'ResourceBinding',
  plural: 'resourcebindings',
  scope: 'Namespaced',
  shortNames: ['rb'],
  statusSubresource: true,
  printerColumns: bindingColumns,
  schema: ResourceBindingSchema,
});
