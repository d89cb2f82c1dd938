/**
 * IPClass (apis.md §2.2): a kind of address — its family, the block size a claim receives, the
 * class it draws from, the scope roles a claim must name, and a reserved leading block. One set
 * per project plane, cluster-scoped.
 *
 * Guarantees: the spec never changes after creation; an IPv4 class hands out at most /32; the
 * reserved block is never shorter than the class's blocks; scope roles are distinct.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { IPFamily } from '../../common/refs.ts';
import { immutable, Int32, ObjectName, rule, validations } from '../../common/schema.ts';
import { IPAM_GROUP, IPAM_VERSION } from './group.ts';

export const IPV4_PREFIX_MESSAGE = 'prefixLength of an IPv4 class must be at most 32';
export const RESERVED_PREFIX_MESSAGE = 'reservedPrefixLength must not be shorter than prefixLength';
export const SCOPE_ROLES_UNIQUE_MESSAGE = 'Each scope role may be listed at most once';
export const IPCLASS_IMMUTABLE_MESSAGE = 'IPClass spec is immutable';

export const IPClassSpec = Type.Object(
  {
    ipFamily: IPFamily,
    prefixLength: Int32({
      minimum: 1,
      maximum: 128,
      description: 'Size of what a claim of this class receives.',
    }),
    parentClassName: Type.Optional(
      ObjectName({
        description: "The class whose range this class draws from; absent: this class's root pools.",
      }),
    ),
    reservedPrefixLength: Type.Optional(
      Int32({
        minimum: 1,
        maximum: 128,
        description: 'Every pool of this class keeps its first block of this length out of allocation.',
      }),
    ),
    scopeRoles: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z][a-z0-9-]*$' }), {
        description: 'Roles a claim of this class must name.',
        default: [],
        maxItems: 4,
        ...validations(rule('self.all(r, self.exists_one(s, s == r))', SCOPE_ROLES_UNIQUE_MESSAGE)),
      }),
    ),
    default: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'The class used for claims that name a family instead of a class.',
      }),
    ),
  },
  validations(
    rule("self.ipFamily == 'IPv6' || self.prefixLength <= 32", IPV4_PREFIX_MESSAGE),
    rule(
      '!has(self.reservedPrefixLength) || self.reservedPrefixLength >= self.prefixLength',
      RESERVED_PREFIX_MESSAGE,
    ),
    immutable(IPCLASS_IMMUTABLE_MESSAGE),
  ),
);

export const IPClassSchema = Type.Object(
  { spec: IPClassSpec },
  { description: 'A kind of address: family, block size, parent class, scope roles and reserved block.' },
);
export type IPClass = TypedObject<typeof IPClassSchema>;

export const ipClassKind = defineKind({
  group: IPAM_GROUP,
  version: IPAM_VERSION,
  kind: 'IPClass',
  plural: 'ipclasses',
  scope: 'Cluster',
  statusSubresource: false,
  printerColumns: [
    fieldColumn('Family', '.spec.ipFamily'),
    fieldColumn('Length', '.spec.prefixLength', 'integer'),
    fieldColumn('Parent', '.spec.parentClassName'),
    fieldColumn('Default', '.spec.default', 'boolean'),
    ageColumn(),
  ],
  schema: IPClassSchema,
});
