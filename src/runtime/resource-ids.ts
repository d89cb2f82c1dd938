/**
 * The ResourceIds controllers address kinds by: one per kind of `src/apis`, derived from its
 * KindDefinition, plus the built-in kinds they read or write (Namespaces, events.k8s.io Events).
 *
 * Guarantees: `resourceIdOf` is a pure function of the definition, so every controller, informer
 * and client of one kind agree on its group, version, plural and scope.
 */
import type { KindDefinition } from '../apis/common/kind.ts';
import type { ResourceId } from '../client/types.ts';

export function resourceIdOf(definition: KindDefinition): ResourceId {
  return {
    group: definition.group,
    version: definition.version,
    kind: definition.kind,
    plural: definition.plural,
    namespaced: definition.scope === 'Namespaced',
  };
}

export const NAMESPACES: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};

export const EVENTS: ResourceId = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};
