/**
 * IPAllocation (apis.md §2.5): a block inside a pool, named after the IPClaim it was made for.
 * Created only by IPAM; a `Retained` one outlives its claim and keeps both its block and its
 * name taken until it is deleted.
 *
 * Guarantees: the spec never changes after creation. That clients never create one or write
 * its status is RBAC's to enforce (a platform grants users no such verbs) and the IPAM hook's.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { IPFamily } from '../../common/refs.ts';
import { immutable, StringEnum, validations } from '../../common/schema.ts';
import { IPAM_GROUP, IPAM_VERSION } from './group.ts';

export const IPALLOCATION_IMMUTABLE_MESSAGE = 'IPAllocation spec is immutable';

export const IPAllocationSpec = Type.Object(
  {
    poolRef: Type.Object({ name: Type.String() }),
    cidr: Type.String(),
    ipFamily: IPFamily,
  },
  validations(immutable(IPALLOCATION_IMMUTABLE_MESSAGE)),
);

export const IPAllocationStatus = Type.Object({
  phase: Type.Optional(
    StringEnum(['Bound', 'Retained'], { description: 'Retained: its claim was deleted under Retain.' }),
  ),
  claimRef: Type.Optional(Type.Object({ name: Type.String() }, { description: 'Absent when retained.' })),
});

export const IPAllocationSchema = Type.Object(
  { spec: IPAllocationSpec, status: Type.Optional(IPAllocationStatus) },
  { description: 'A block inside a pool, named after the IPClaim it was made for.' },
);
export type IPAllocation = TypedObject<typeof IPAllocationSchema>;

export const ipAllocationKind = defineKind({
  group: IPAM_GROUP,
  version: IPAM_VERSION,
  kind: 'IPAllocation',
  plural: 'ipallocations',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('CIDR', '.spec.cidr'),
    fieldColumn('Pool', '.spec.poolRef.name'),
    fieldColumn('Phase', '.status.phase'),
    fieldColumn('Claim', '.status.claimRef.name'),
    ageColumn(),
  ],
  schema: IPAllocationSchema,
});
