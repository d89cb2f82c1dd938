/**
 * The embedded IPAM allocation hook (controllers.md §8): an admission plugin of one project
 * plane that binds an IPClaim in the write that creates it, releases address space in the write
 * that deletes a claim, an allocation or a pool, and refuses what IPAM alone may write.
 *
 * Guarantees:
 * - one operation at a time per plane, against the plane's store at the current revision: the
 *   plugin runs synchronously inside the write (apiserver/admission/plugins.ts), and Node runs one write at a time;
 * - the request's own write and every IPAM write it causes (the IPAllocation, provisioned and
 *   freed pools) commit in one storage transaction, or, on a refusal, nothing is written;
 * - refusals are the Statuses of apis.md §2.6 — IPAM causes in `details.causes`, under `type` as
 *   the spec names it and under `reason`, the JSON name of a Kubernetes cause's type, so either
 *   reading of the spec classifies them alike;
 * - IPAM's own writes are related writes, which are not admitted, so every CREATE of an
 *   IPAllocation and every `/status` write of an IPClaim or IPAllocation that reaches this plugin
 *   is a client's, and is refused (403); so is a client's `parentPoolRef` or `scope` on a pool
 *   (422), a pool CIDR that is not canonical or not of its class's family, and a root pool
 *   overlapping another (422 on `spec.cidr`);
 * - a deletion is released once, by the DELETE that starts it (one that finds the object already
 *   deleting passes through); deletions in a terminating namespace are never refused (release.ts).
 * Assumes: the plane serves the four ipam.miloapis.com/v1alpha1 kinds (projectCrds).
 */
import type { AdmissionPlugin, AdmissionRequest, RelatedWrite } from '../apiserver/admission/plugins.ts';
import {
  ApiError,
  forbidden,
  forbiddenField,
  invalid,
  invalidValue,
  type FieldError,
  type StatusDetails,
  type StatusReason,
} from '../apiserver/errors.ts';
import { isPlainObject, type KubeObject } from '../apiserver/objects.ts';
import type { Plane } from '../apiserver/plane.ts';
import { presentedForm, resourceRef, type ResourceType } from '../apiserver/resources/resource-type.ts';
import { IPAM_GROUP, IPAM_VERSION } from '../apis/ipam/v1alpha1/group.ts';
import type { IPAllocation } from '../apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClass } from '../apis/ipam/v1alpha1/ip-class.ts';
import type { IPPool } from '../apis/ipam/v1alpha1/ip-pool.ts';
import {
  ipamRefusalMessages as messages,
  poolValidationMessages as cidrMessages,
} from '../apis/ipam/v1alpha1/refusals.ts';
import { bindClaim } from './allocator.ts';
import { formatCidr, hasHostBits, networkOf, overlaps, parseCidr } from './cidr.ts';
import { cidrOf, Ledger } from './ledger.ts';
import { IpamRefusal, type RefusalRule } from './refusal.ts';
import { releaseAllocation, releaseClaim, releasePool } from './release.ts';

export const name = 'ipam';

/** How each refusal goes on the wire: HTTP code, Status reason, and whether it carries an IPAM cause. */
const WIRE: Record<RefusalRule, { code: number; reason: StatusReason; cause: boolean }> = {
  Exhausted: { code: 507, reason: 'InsufficientStorage', cause: true },
  AllocationRetained: { code: 409, reason: 'Conflict', cause: true },
  ClaimExists: { code: 409, reason: 'AlreadyExists', cause: true },
  ClassNotFound: { code: 400, reason: 'BadRequest', cause: true },
  NoDefaultClass: { code: 400, reason: 'BadRequest', cause: true },
  NoOfferingPool: { code: 400, reason: 'BadRequest', cause: true },
  PrefixLengthRejected: { code: 400, reason: 'BadRequest', cause: true },
  ScopeRolesMissing: { code: 400, reason: 'BadRequest', cause: true },
  RangeOccupied: { code: 409, reason: 'Conflict', cause: false },
  AllocationBound: { code: 409, reason: 'Conflict', cause: false },
  PoolBound: { code: 409, reason: 'Conflict', cause: false },
};

export function ipamAdmission(plane: Plane): AdmissionPlugin {
  return {
    name,
    admit(request) {
      if (request.type.group !== IPAM_GROUP) return request.object;
      try {
        return admit(plane, request);
      } catch (err) {
        throw err instanceof IpamRefusal ? statusOf(err) : err;
      }
    },
  };
}

function admit(plane: Plane, request: AdmissionRequest): KubeObject {
  const { type, operation, object, subresource } = request;
  const objectName = object.metadata.name!;
  if (operation === 'DELETE' && object.metadata.deletionTimestamp) return object;
  const force = operation === 'DELETE' && isTerminating(plane, object.metadata.namespace);
  switch (`${operation} ${type.plural}`) {
    case 'CREATE ipclaims': {
      const ledger = ledgerOf(plane);
      const status = bindClaim(ledger, admitted<IPClaim>(object));
      commitWith(plane, request, ledger);
      return { ...object, status };
    }
    case 'DELETE ipclaims':
      return release(plane, request, (ledger) => releaseClaim(ledger, admitted<IPClaim>(object), { force }));
    case 'DELETE ipallocations':
      return release(plane, request, (ledger) =>
        releaseAllocation(ledger, admitted<IPAllocation>(object), { force }),
      );
    case 'DELETE ippools':
      return release(plane, request, (ledger) => releasePool(ledger, admitted<IPPool>(object)));
    case 'CREATE ippools':
      validatePool(ledgerOf(plane), type, admitted<IPPool>(object));
      return object;
    case 'CREATE ipallocations':
      throw forbidden(resourceRef(type), objectName, messages.allocationCreatedByIpam);
    case 'UPDATE ipclaims':
    case 'UPDATE ipallocations':
      if (subresource !== 'status') return object;
      throw forbidden(
        resourceRef(type),
        objectName,
        type.plural === 'ipclaims' ? messages.claimStatusByIpam : messages.allocationStatusByIpam,
      );
    default:
      return object;
  }
}

type IpamObject = IPClaim | IPAllocation | IPPool | IPClass;

/**
 * An IPAM object as its kind's type. Schema admission runs first in every plane's chain
 * (plane.ts) and stored objects passed it, so the object satisfies its kind's schema; what is
 * left to check is that it has a spec at all.
 */
function admitted<T extends IpamObject>(object: KubeObject): T {
  if (!hasSpec<T>(object)) throw new Error(`${object.kind ?? 'object'} ${object.metadata.name} has no spec`);
  return object;
}

function hasSpec<T extends IpamObject>(object: KubeObject): object is KubeObject & T {
  return isPlainObject(object.spec);
}

function release(plane: Plane, request: AdmissionRequest, step: (ledger: Ledger) => void): KubeObject {
  const ledger = ledgerOf(plane);
  step(ledger);
  commitWith(plane, request, ledger);
  return request.object;
}

function isTerminating(plane: Plane, namespace: string | undefined): boolean {
  return namespace !== undefined && plane.namespace(namespace)?.metadata.deletionTimestamp !== undefined;
}

function ipamType(plane: Plane, plural: string): ResourceType {
  const type = plane.catalog.lookup(IPAM_GROUP, IPAM_VERSION, plural);
  if (!type) throw new Error(`${plural}.${IPAM_GROUP}/${IPAM_VERSION} is not served in plane ${plane.name}`);
  return type;
}

/** The plane's IPAM objects at the current revision. */
function ledgerOf(plane: Plane): Ledger {
  const list = <T extends IpamObject>(plural: string): T[] => {
    const type = ipamType(plane, plural);
    return plane.log.list(type.storage).map((stored) => admitted<T>(presentedForm(type, stored)));
  };
  return new Ledger({
    classes: list('ipclasses'),
    pools: list('ippools'),
    allocations: list('ipallocations'),
    claims: list('ipclaims'),
  });
}

/** Adds the ledger's writes to the request's, so they commit in its transaction. */
function commitWith(plane: Plane, request: AdmissionRequest, ledger: Ledger): void {
  const related: RelatedWrite[] = ledger.writes.map((write) => ({
    type: ipamType(plane, write.plural),
    object: write.object,
    remove: write.remove,
  }));
  request.related.push(...related);
}

function statusOf(refusal: IpamRefusal): ApiError {
  const wire = WIRE[refusal.rule];
  const details: StatusDetails = refusal.subject
    ? { name: refusal.subject.name, group: IPAM_GROUP, kind: refusal.subject.plural }
    : {};
  if (wire.cause) {
    details.causes = refusal.causes.map((cause) => ({ type: refusal.rule, reason: refusal.rule, ...cause }));
  }
  return new ApiError(wire.code, wire.reason, refusal.message, details);
}

/** A client's pool: no IPAM-owned fields, a canonical CIDR of its class's family, no root overlap. */
function validatePool(ledger: Ledger, type: ResourceType, pool: IPPool): void {
  const errors: FieldError[] = [];
  if (pool.spec.parentPoolRef !== undefined) {
    errors.push(forbiddenField('spec.parentPoolRef', messages.poolFieldsSetByIpam));
  }
  if (pool.spec.scope !== undefined) errors.push(forbiddenField('spec.scope', messages.poolFieldsSetByIpam));
  const cidrError = checkCidr(ledger, pool);
  if (cidrError) errors.push(cidrError);
  if (errors.length > 0) throw invalid(type.kind, type.group, pool.metadata.name!, errors);
}

function checkCidr(ledger: Ledger, pool: IPPool): FieldError | undefined {
  const { cidr: text, className } = pool.spec;
  const refuse = (detail: string) => invalidValue('spec.cidr', text, detail);
  const cidr = parseCidr(text);
  if (!cidr) return refuse(cidrMessages.notACidr);
  const canonical = formatCidr(networkOf(cidr));
  if (hasHostBits(cidr)) return refuse(cidrMessages.hostBits(canonical));
  if (canonical !== text) return refuse(cidrMessages.notCanonical(canonical));
  const ipClass = ledger.ipClass(className);
  if (!ipClass) return invalidValue('spec.className', className, messages.classNotFound(className));
  if (ipClass.spec.ipFamily !== cidr.family) {
    return refuse(cidrMessages.familyMismatch(cidr.family, className, ipClass.spec.ipFamily));
  }
  const overlapping = ledger.rootPools().find((root) => overlaps(cidrOf(root), cidr));
  if (overlapping)
    return refuse(cidrMessages.overlapsRootPool(overlapping.metadata.name!, overlapping.spec.cidr));
  return undefined;
}
