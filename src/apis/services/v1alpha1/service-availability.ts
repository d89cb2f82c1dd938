/**
 * ServiceAvailability (apis.md §4): whether a service is available in a location, in the
 * platform plane. The LocationBinding projector reads the one for `networking.datumapis.com`.
 *
 * Guarantees: `serviceRef` and `locationRef` never change after creation. netpresence finds
 * these objects by spec, never by name; `serviceAvailabilityName` is the platform's convention.
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { immutable, Int64, ObjectName, validations } from '../../common/schema.ts';

export const SERVICES_GROUP = 'services.miloapis.com';
export const SERVICES_VERSION = 'v1alpha1';

/** The service netpresence provides and gates on. */
export const NETWORKING_SERVICE = 'networking.datumapis.com';

export const ServiceAvailabilityConditionType = { Available: 'Available' } as const;

export const SERVICE_REF_IMMUTABLE_MESSAGE = 'serviceRef is immutable';
export const LOCATION_REF_IMMUTABLE_MESSAGE = 'locationRef is immutable';

export function serviceAvailabilityName(service: string, location: string): string {
  return `${service}--${location}`;
}

export const ServiceAvailabilitySpec = Type.Object({
  serviceRef: Type.Object({ name: Type.String() }, validations(immutable(SERVICE_REF_IMMUTABLE_MESSAGE))),
  locationRef: Type.Object({ name: ObjectName() }, validations(immutable(LOCATION_REF_IMMUTABLE_MESSAGE))),
});

export const ServiceAvailabilityStatus = Type.Object({
  conditions: Type.Optional(Conditions()),
  observedGeneration: Type.Optional(Int64()),
});

export const ServiceAvailabilitySchema = Type.Object(
  { spec: ServiceAvailabilitySpec, status: Type.Optional(ServiceAvailabilityStatus) },
  { description: 'Whether a service is available in a location.' },
);
export type ServiceAvailability = TypedObject<typeof ServiceAvailabilitySchema>;

export const serviceAvailabilityKind = defineKind({
  group: SERVICES_GROUP,
  version: SERVICES_VERSION,
  kind: 'ServiceAvailability',
  plural: 'serviceavailabilities',
  scope: 'Cluster',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('Service', '.spec.serviceRef.name'),
    fieldColumn('Location', '.spec.locationRef.name'),
    conditionStatusColumn('Available'),
    ageColumn(),
  ],
  schema: ServiceAvailabilitySchema,
});
