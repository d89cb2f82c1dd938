/**
 * Location (apis.md §1.6): a place the platform can run things, in the platform plane. Owned by
 * the platform; netpresence reads it (the location publisher and the LocationBinding projector).
 *
 * Guarantees: coordinates, when given, are decimal strings within ±90 latitude and ±180
 * longitude; `locationClassName` is not enum-checked.
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import {
  ageColumn,
  conditionReasonColumn,
  conditionStatusColumn,
  defineKind,
  fieldColumn,
} from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { rule, StringMap, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';

/** The well-known topology key the location publisher reads. */
export const CITY_CODE_TOPOLOGY_KEY = 'topology.datum.net/city-code';

export const LocationConditionType = { Ready: 'Ready' } as const;

export const LATITUDE_MESSAGE = 'latitude must be between -90 and 90';
export const LONGITUDE_MESSAGE = 'longitude must be between -180 and 180';

export const LocationSpec = Type.Object({
  locationClassName: Type.String({ description: 'Documented values: datum-managed, self-managed.' }),
  topology: StringMap(Type.String()),
  provider: Type.Object({
    gcp: Type.Optional(Type.Object({ projectId: Type.String(), region: Type.String(), zone: Type.String() })),
  }),
  coordinates: Type.Optional(
    Type.Object({
      latitude: Type.String({
        pattern: '^-?\\d{1,2}(\\.\\d+)?$',
        ...validations(rule('double(self) >= -90.0 && double(self) <= 90.0', LATITUDE_MESSAGE)),
      }),
      longitude: Type.String({
        pattern: '^-?\\d{1,3}(\\.\\d+)?$',
        ...validations(rule('double(self) >= -180.0 && double(self) <= 180.0', LONGITUDE_MESSAGE)),
      }),
    }),
  ),
});

export const LocationStatus = Type.Object({ conditions: Type.Optional(Conditions()) });

export const LocationSchema = Type.Object(
  { spec: LocationSpec, status: Type.Optional(LocationStatus) },
  { description: 'A place the platform runs things in.' },
);
export type Location = TypedObject<typeof LocationSchema>;

export const locationKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'Location',
  plural: 'locations',
  scope: 'Cluster',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('Class', '.spec.locationClassName'),
    fieldColumn('City', '.spec.topology.topology\\.datum\\.net/city-code'),
    ageColumn(),
    conditionStatusColumn('Ready'),
    conditionReasonColumn('Reason', 'Ready'),
  ],
  schema: LocationSchema,
});
