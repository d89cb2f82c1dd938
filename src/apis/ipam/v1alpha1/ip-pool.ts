/**
 * IPPool (apis.md §2.3): a CIDR of one class. Root pools are written by an operator or the
 * fleet; provisioned pools by IPAM, carved from the pool they draw from for one scope.
 *
 * Guarantees: the spec never changes after creation. Not checked here but by the IPAM
 * allocation hook (controllers.md §8): the CIDR's syntax, host bits and family, overlap between
 * root pools, and that clients never set `parentPoolRef` or `scope`.
 * `provisionedPoolName` is the readable name of §7.4, with its hashed fallback.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { isDnsSubdomain, shortHash } from '../../common/names.ts';
import { immutable, ObjectName, validations } from '../../common/schema.ts';
import { IPAM_GROUP, IPAM_VERSION } from './group.ts';
import { ScopeMap, type Scope } from './scope.ts';

export const IPPOOL_IMMUTABLE_MESSAGE = 'IPPool spec is immutable';

export const IPPoolSpec = Type.Object(
  {
    className: ObjectName({ description: "The pool's class." }),
    cidr: Type.String(),
    parentPoolRef: Type.Optional(
      Type.Object(
        { name: Type.String() },
        { description: 'Set only by IPAM: the pool this one was carved from.' },
      ),
    ),
    scope: Type.Optional(
      ScopeMap({ description: 'Set only by IPAM: the scope this provisioned pool serves.' }),
    ),
  },
  validations(immutable(IPPOOL_IMMUTABLE_MESSAGE)),
);

export const IPPoolSchema = Type.Object({ spec: IPPoolSpec }, { description: 'A CIDR of one IPClass.' });
export type IPPool = TypedObject<typeof IPPoolSchema>;

/**
 * The pool of class `className` serving `scope`: `<class>-` and the scope's names in
 * `scopeRoles` order, joined by `-`; when that name is taken by a pool of another scope, too
 * long or not a DNS-1123 subdomain, `<class>-` and 12 hex characters of the SHA-256 of the
 * `role=name` pairs joined by NUL.
 */
export function provisionedPoolName(
  className: string,
  scopeRoles: readonly string[],
  scope: Scope,
  takenByAnotherScope: (name: string) => boolean = () => false,
): string {
  const readable = [className, ...scopeRoles.map((role) => scope[role]?.name ?? '')].join('-');
  if (isDnsSubdomain(readable) && !takenByAnotherScope(readable)) return readable;
  return `${className}-${shortHash(scopeRoles.map((role) => `${role}=${scope[role]?.name ?? ''}`))}`;
}

export const ipPoolKind = defineKind({
  group: IPAM_GROUP,
  version: IPAM_VERSION,
  kind: 'IPPool',
  plural: 'ippools',
  scope: 'Cluster',
  statusSubresource: false,
  printerColumns: [
    fieldColumn('CIDR', '.spec.cidr'),
    fieldColumn('Class', '.spec.className'),
    fieldColumn('Parent', '.spec.parentPoolRef.name'),
    ageColumn(),
  ],
  schema: IPPoolSchema,
});
