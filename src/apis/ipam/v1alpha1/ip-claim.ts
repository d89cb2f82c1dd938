/**
 * IPClaim (apis.md §2.4): a request for addresses, in the project namespace. Creating one
 * allocates and binds it in the same write; deleting it releases. Status is IPAM's.
 *
 * Guarantees: exactly one of `className` and `ipFamily` is set; the spec never changes after
 * creation; defaults `target: Address`, `reclaimPolicy: Delete`. The name helpers are the
 * deterministic names of §7.4, so a retry finds what an earlier attempt created.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { isDnsSubdomain, shortHash } from '../../common/names.ts';
import { IPFamily } from '../../common/refs.ts';
import { immutable, Int32, ObjectName, rule, StringEnum, validations } from '../../common/schema.ts';
import { IPAM_GROUP, IPAM_VERSION } from './group.ts';
import { ScopeMap } from './scope.ts';

export const CLASS_OR_FAMILY_MESSAGE = 'exactly one of className and ipFamily must be set';
export const IPCLAIM_IMMUTABLE_MESSAGE = 'IPClaim spec is immutable';

export const IPClaimSpec = Type.Object(
  {
    className: Type.Optional(ObjectName({ description: 'The class to allocate from.' })),
    ipFamily: Type.Optional(IPFamily),
    target: Type.Optional(StringEnum(['Address', 'ScopeRange'], { default: 'Address' })),
    scope: Type.Optional(ScopeMap({ maxProperties: 8 })),
    reclaimPolicy: Type.Optional(
      StringEnum(['Delete', 'Retain'], {
        default: 'Delete',
        description: 'Fate of the allocation when the claim is deleted (ScopeRange claims behave as Delete).',
      }),
    ),
    prefixLength: Type.Optional(
      Int32({ minimum: 1, maximum: 128, description: "A smaller block than the class's (Address only)." }),
    ),
  },
  validations(
    rule('has(self.className) != has(self.ipFamily)', CLASS_OR_FAMILY_MESSAGE),
    immutable(IPCLAIM_IMMUTABLE_MESSAGE),
  ),
);

export const IPClaimStatus = Type.Object({
  phase: Type.Optional(StringEnum(['Pending', 'Bound'])),
  allocatedCIDR: Type.Optional(Type.String()),
  poolRef: Type.Optional(Type.Object({ name: Type.String() })),
  boundAllocationRef: Type.Optional(Type.Object({ name: Type.String() })),
});

export const IPClaimSchema = Type.Object(
  { spec: IPClaimSpec, status: Type.Optional(IPClaimStatus) },
  { description: 'A request for addresses; IPAM allocates and binds it in the write that creates it.' },
);
export type IPClaim = TypedObject<typeof IPClaimSchema>;

/** The claim holding a network's /48. */
export function networkPrefixClaimName(networkUid: string): string {
  return `network-${networkUid}`;
}

/** The claim holding a location's /64. */
export function subnetPrefixClaimName(networkContextUid: string): string {
  return `networkcontext-${networkContextUid}`;
}

/** The discriminator of an address requested by family: `f-ipv4`, `f-ipv6`. */
export function familyDiscriminator(family: IPFamily): string {
  return `f-${family.toLowerCase()}`;
}

/** The discriminator of an address requested by class: `c-<class>`. */
export function classDiscriminator(className: string): string {
  return `c-${className}`;
}

const TRUNCATED_LENGTH = 240;

/** The cell whose claim controller made an interface's IPClaim (apis.md §7.2, §7.4). */
export const CELL_LABEL = 'networking.datumapis.com/cell';

/**
 * The IPClaim of one address of an interface claim in one cell: `<claim>.<cell>-<discriminator>`,
 * or, when that is longer than 253 characters or no DNS-1123 subdomain, `<claim>.<cell>` cut to
 * 240 characters with trailing `-` and `.` trimmed, `-`, and 12 hex characters of
 * sha256(claim NUL cell NUL discriminator). Two cells' claims of one name never share one.
 */
export function addressClaimName(claimName: string, cell: string, discriminator: string): string {
  const owner = `${claimName}.${cell}`;
  const readable = `${owner}-${discriminator}`;
  if (isDnsSubdomain(readable)) return readable;
  const stem = owner.slice(0, TRUNCATED_LENGTH).replace(/[-.]+$/, '');
  return `${stem}-${shortHash([claimName, cell, discriminator])}`;
}

/**
 * The name versions before the cell was part of it gave the same IPClaim: `<claim>-<discriminator>`
 * (or its hashed fallback). Read only, to keep interfaces minted before the upgrade addressed.
 */
export function legacyAddressClaimName(claimName: string, discriminator: string): string {
  const readable = `${claimName}-${discriminator}`;
  if (isDnsSubdomain(readable)) return readable;
  const stem = claimName.slice(0, TRUNCATED_LENGTH).replace(/[-.]+$/, '');
  return `${stem}-${shortHash([claimName, discriminator])}`;
}

export const ipClaimKind = defineKind({
  group: IPAM_GROUP,
  version: IPAM_VERSION,
  kind: 'IPClaim',
  plural: 'ipclaims',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('Phase', '.status.phase'),
    fieldColumn('CIDR', '.status.allocatedCIDR'),
    fieldColumn('Pool', '.status.poolRef.name'),
    fieldColumn('Target', '.spec.target'),
    ageColumn(),
  ],
  schema: IPClaimSchema,
});
