/**
 * LocationBinding (apis.md §1.7): a location projected into one project, in the project plane,
 * named after the location. Its presence is what the presence controller checks.
 *
 * Guarantees: the name is the location's (`locationBindingName`); the projector manages only
 * objects labelled `app.kubernetes.io/managed-by=netpresence-location-projector` and writes
 * `Available=True` with the message below (controllers.md §2).
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { StringMap } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';

export const LocationBindingConditionType = { Available: 'Available' } as const;

export const LocationBindingReason = {
  AllGatesOpen: 'AllGatesOpen',
  /** Used by the platform's catalogue; the projector deletes the binding instead. */
  LocationClassNotSupported: 'LocationClassNotSupported',
  LocationNotReady: 'LocationNotReady',
} as const;

export const locationBindingMessages = {
  allGatesOpen: (location: string) =>
    `Location "${location}" is ready and networking.datumapis.com is available there`,
};

/** The projector's labels (the location label is the shared `networking.datumapis.com/location`). */
export const LOCATION_CLASS_LABEL = 'networking.datumapis.com/class';
export const SERVICE_NAME_LABEL = 'services.miloapis.com/service-name';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const LOCATION_PROJECTOR = 'netpresence-location-projector';

/** The LocationBinding of `location` in a project plane. */
export function locationBindingName(location: string): string {
  return location;
}

export const LocationBindingSpec = Type.Object({
  locationRef: Type.Object({ name: Type.String() }),
  locationClassName: Type.Optional(Type.String()),
  displayName: Type.Optional(Type.String()),
  topology: Type.Optional(StringMap(Type.String())),
});

export const LocationBindingStatus = Type.Object({ conditions: Type.Optional(Conditions()) });

export const LocationBindingSchema = Type.Object(
  { spec: LocationBindingSpec, status: Type.Optional(LocationBindingStatus) },
  { description: 'A location projected into one project; its name is the location name.' },
);
export type LocationBinding = TypedObject<typeof LocationBindingSchema>;

export const locationBindingKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'LocationBinding',
  plural: 'locationbindings',
  scope: 'Cluster',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('Location', '.spec.locationRef.name'),
    fieldColumn('Class', '.spec.locationClassName'),
    conditionStatusColumn('Available'),
    ageColumn(),
  ],
  schema: LocationBindingSchema,
});
