/**
 * CellRestriction: on the model of Kubernetes' NodeRestriction, a cell's identity may write
 * only the IPAM objects of its own cell (issue 13, finding 3; scenario S132).
 *
 * Guarantees, for a request by an identity `cellOf` maps to cell `C` (others pass untouched):
 * - an IPClaim it creates carries `networking.datumapis.com/cell: C`: stamped when absent, 403
 *   when it names another cell;
 * - it may update or delete only IPClaims and IPAllocations already labelled `C`, and an update
 *   may not remove or change the label (403);
 * - every other IPAM kind (IPPools, IPClasses, …) is refused 403 for every write;
 * - IPAllocations IPAM writes along with its request (the allocation a claim is bound to) are
 *   labelled `C` too, so the cell can later release what it claimed; an allocation labelled for
 *   another cell is never bound for it (403).
 * Caveat: objects written before this plugin existed carry no label; a cell can read them but
 *   neither change nor delete them. An operator hands one to its cell with
 *   `kubectl label ipclaim <name> networking.datumapis.com/cell=<cell>` (the same for its
 *   IPAllocation); the manager and the admin are not restricted.
 * Must run after IPAM's own admission, which adds the related writes this plugin labels.
 */
import { CELL_LABEL } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { AdmissionPlugin, AdmissionRequest } from '../apiserver/admission/plugins.ts';
import { forbidden } from '../apiserver/errors.ts';
import type { KubeObject } from '../apiserver/objects.ts';
import { resourceRef } from '../apiserver/resources/resource-type.ts';

const IPAM_GROUP = 'ipam.miloapis.com';
const OWNED = new Set(['ipclaims', 'ipallocations']);

export const name = 'CellRestriction';

function cellLabel(object: KubeObject | undefined): string | undefined {
  return object?.metadata.labels?.[CELL_LABEL];
}

function withCellLabel(object: KubeObject, cell: string): KubeObject {
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, [CELL_LABEL]: cell } },
  };
}

function refuse(request: AdmissionRequest, user: string, detail: string): Error {
  const objectName = request.object.metadata.name ?? '';
  return forbidden(resourceRef(request.type), objectName, `User "${user}" cannot ${detail}`);
}

/** `cellOf` names the cell an identity acts for, or undefined for any other identity. */
export function cellRestriction(cellOf: (user: string) => string | undefined): AdmissionPlugin {
  return {
    name,
    admit(request) {
      const user = request.user;
      const cell = user === undefined ? undefined : cellOf(user);
      if (user === undefined || cell === undefined || request.type.group !== IPAM_GROUP)
        return request.object;
      const kind = request.type.kind;
      const verb = request.operation.toLowerCase();
      if (!OWNED.has(request.type.plural)) {
        throw refuse(
          request,
          user,
          `${verb} ${kind}s: a cell writes only its own IPClaims and IPAllocations`,
        );
      }
      let object = request.object;
      if (request.operation === 'CREATE') {
        const label = cellLabel(object);
        if (label !== undefined && label !== cell) {
          throw refuse(
            request,
            user,
            `create ${kind}s labelled ${CELL_LABEL}=${label}: it acts for cell ${cell}`,
          );
        }
        object = withCellLabel(object, cell);
      } else {
        const held = cellLabel(request.old);
        if (held !== cell) {
          throw refuse(
            request,
            user,
            `${verb} ${kind}s not labelled ${CELL_LABEL}=${cell}` +
              (held === undefined
                ? ' (this one carries no cell label)'
                : ` (this one belongs to cell ${held})`),
          );
        }
        if (request.operation === 'UPDATE' && cellLabel(object) !== cell) {
          throw refuse(request, user, `remove or change the label ${CELL_LABEL} of a ${kind}`);
        }
      }
      labelRelatedAllocations(request, user, cell);
      return object;
    },
  };
}

/** Labels the allocations IPAM writes with this request for `cell`; refuses another cell's. */
function labelRelatedAllocations(request: AdmissionRequest, user: string, cell: string): void {
  request.related = request.related.map((write) => {
    if (write.remove || write.type.group !== IPAM_GROUP || write.type.plural !== 'ipallocations')
      return write;
    const label = cellLabel(write.object);
    if (label === cell) return write;
    if (label !== undefined) {
      throw forbidden(
        resourceRef(write.type),
        write.object.metadata.name ?? '',
        `User "${user}" cannot bind an IPAllocation of cell ${label}: it acts for cell ${cell}`,
      );
    }
    return { ...write, object: withCellLabel(write.object, cell) };
  });
}
