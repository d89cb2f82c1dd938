/**
 * The `AddressAllocationMissing` Warning event (apis.md §7.5): regarding the claim, related the
 * interface, as client-go's events recorder writes an events.k8s.io/v1 Event.
 *
 * Guarantees: recording never throws — a failed write is logged, because an event reports work
 * and is not part of it.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { NETWORKING_GROUP, NETWORKING_VERSION } from '../../apis/networking/v1alpha/group.ts';
import { networkInterfaceClaimKind } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  AddressAllocationMissingEvent,
  networkInterfaceKind,
} from '../../apis/networking/v1alpha/network-interface.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import { reportingController } from '../../runtime/event-recorder.ts';

const API_VERSION = `${NETWORKING_GROUP}/${NETWORKING_VERSION}`;

function reference(object: KubeObject, kind: string) {
  const { name, namespace, uid, resourceVersion } = object.metadata;
  return { apiVersion: API_VERSION, kind, name, namespace, uid, resourceVersion };
}

export interface AllocationEvents {
  missing(claim: KubeObject, iface: KubeObject, note: string): Promise<void>;
}

export function allocationEvents(options: {
  client: ResourceClient;
  instance: string;
  clock: Clock;
  log: Logger;
}): AllocationEvents {
  return {
    async missing(claim, iface, note) {
      const body: KubeObject = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: {
          // A claim name may take all 253 characters an Event name may have.
          name: `${claim.metadata.name!.slice(0, 236).replace(/[-.]+$/, '')}.${randomBytes(8).toString('hex')}`,
          namespace: claim.metadata.namespace,
        },
        eventTime: new Date(options.clock.now()).toISOString().replace(/Z$/, '000Z'),
        reportingController: reportingController('claim'),
        reportingInstance: options.instance,
        action: AddressAllocationMissingEvent.action,
        reason: AddressAllocationMissingEvent.reason,
        type: 'Warning',
        note,
        regarding: reference(claim, networkInterfaceClaimKind.kind),
        related: reference(iface, networkInterfaceKind.kind),
      };
      try {
        await options.client.create(body);
      } catch (err) {
        options.log.warn(
          { err, regarding: claim.metadata.name },
          'could not record an AddressAllocationMissing event',
        );
      }
    },
  };
}
