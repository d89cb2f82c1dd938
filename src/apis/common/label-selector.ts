/**
 * The standard `metav1.LabelSelector`, as Karmada's policy kinds embed it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from './schema.ts';

export const LabelSelectorRequirement = Type.Object({
  key: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
});

export const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(StringMap(Type.String())),
    matchExpressions: Type.Optional(
      Type.Array(LabelSelectorRequirement, { 'x-kubernetes-list-type': 'atomic' }),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);
export type LabelSelector = Static<typeof LabelSelector>;
