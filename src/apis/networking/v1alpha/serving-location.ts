/**
 * ServingLocation (apis.md §1.8): a read-only copy of a Location that tells a cell where it is.
 * The location publisher writes it on the hub, with the ClusterPropagationPolicy
 * `location-<loc>` that carries it (and the location's contexts and subnets) to the cells
 * serving the location (controllers.md §7).
 *
 * Guarantees: `spec.topology` always carries a non-empty `topology.datum.net/city-code`; the
 * name is the Location's. No status. The publisher's events, removal-guard reasons and their
 * messages are the exact words of controllers.md §7.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { Int64, rule, StringMap, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';

export const CITY_CODE_MESSAGE = 'topology must carry a non-empty topology.datum.net/city-code';

/** On hub ServingLocations and ClusterPropagationPolicies `location-*`, value `location-publisher`. */
export const PUBLISHED_BY_LABEL = 'networking.datumapis.com/published-by';
export const LOCATION_PUBLISHER = 'location-publisher';
/** `"true"` on a hub ServingLocation lets the publisher remove it without the guard. */
export const REMOVAL_OVERRIDE_ANNOTATION = 'networking.datumapis.com/removal-override';
/** `"<reason>: <message>"` on a hub ServingLocation while its removal is held. */
export const REMOVAL_BLOCKED_ANNOTATION = 'networking.datumapis.com/removal-blocked';

export const RemovalBlockedReason = {
  ClustersStillServing: 'ClustersStillServing',
  FleetNotFullyLabelled: 'FleetNotFullyLabelled',
} as const;

export const removalBlockedMessages = {
  clustersStillServing: (clusters: string[]) =>
    `clusters still labelled for this location: ${[...clusters].sort().join(', ')}`,
  fleetNotFullyLabelled: (clusters: string[]) =>
    `no cluster claims this location, but ${clusters.length} Ready cluster(s) carry no location label at all: ${[...clusters].sort().join(', ')}`,
};

/** The value of the removal-blocked annotation. */
export function removalBlockedValue(reason: string, message: string): string {
  return `${reason}: ${message}`;
}

/** The publisher's events (events.k8s.io/v1, type Warning), apis.md §7.5. */
export const PublisherEventReason = {
  MissingCityCode: 'MissingCityCode',
  UnlabelledHubObject: 'UnlabelledHubObject',
  ForeignPolicyClaim: 'ForeignPolicyClaim',
} as const;

export const PublisherEventAction = {
  PublishLocation: 'PublishLocation',
  CheckPropagation: 'CheckPropagation',
} as const;

export const publisherEventMessages = {
  missingCityCode: (location: string) =>
    `Location "${location}" carries no topology.datum.net/city-code, so it cannot be published`,
  unlabelledHubObject: (kind: 'ServingLocation' | 'ClusterPropagationPolicy', name: string) =>
    `${kind} "${name}" on the hub carries no ${PUBLISHED_BY_LABEL} label and is not owned by this publisher`,
  foreignPolicyClaim: (
    kind: string,
    name: string,
    policy: { kind: 'ClusterPropagationPolicy' | 'PropagationPolicy'; name: string },
    location: string,
  ) =>
    `${kind} "${name}" is claimed by ${policy.kind} "${policy.name}", not by ClusterPropagationPolicy "${locationPolicyName(location)}", so it may reach cells that do not serve "${location}"`,
};

export function servingLocationName(location: string): string {
  return location;
}

/** The ClusterPropagationPolicy carrying a location's objects to its cells. */
export function locationPolicyName(location: string): string {
  return `location-${location}`;
}

export const ServingLocationSpec = Type.Object({
  topology: StringMap(Type.String(), {
    description: "Copy of the Location's topology.",
    minProperties: 1,
    ...validations(
      rule(
        "'topology.datum.net/city-code' in self && self['topology.datum.net/city-code'] != ''",
        CITY_CODE_MESSAGE,
      ),
    ),
  }),
  source: Type.Optional(
    Type.Object({
      generation: Type.Optional(Int64({ description: 'The Location generation copied.' })),
      publishedAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'When the content last changed.' }),
      ),
    }),
  ),
});

export const ServingLocationSchema = Type.Object(
  { spec: ServingLocationSpec },
  { description: 'A read-only copy of a Location that tells a cell where it is.' },
);
export type ServingLocation = TypedObject<typeof ServingLocationSchema>;

export const servingLocationKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'ServingLocation',
  plural: 'servinglocations',
  scope: 'Cluster',
  statusSubresource: false,
  printerColumns: [
    fieldColumn('City', '.spec.topology.topology\\.datum\\.net/city-code'),
    fieldColumn('Region', '.spec.topology.topology\\.datum\\.net/region'),
    fieldColumn('Source Generation', '.spec.source.generation', 'integer'),
    ageColumn(),
  ],
  schema: ServingLocationSchema,
});
