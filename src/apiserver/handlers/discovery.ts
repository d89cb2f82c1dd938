/**
 * Legacy discovery (`/api`, `/apis`, `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>`) and `/version`,
 * derived from the plane's catalog at the moment of the request.
 *
 * Guarantees: a CRD's group and version appear exactly while it is served; each resource lists
 * its verbs, shortNames and categories, and each subresource is an entry of its own.
 */
import { pathNotFound } from '../errors.ts';
import type { Catalog } from '../resources/catalog.ts';
import { STANDARD_VERBS, type ResourceType } from '../resources/resource-type.ts';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-netpresence',
  gitCommit: 'netpresence',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function legacyVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, versions: string[]) {
  const list = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

export function groupList(catalog: Catalog) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog
      .groups()
      .filter((g) => g.group !== '')
      .map((g) => groupEntry(g.group, g.versions)),
  };
}

export function apiGroup(catalog: Catalog, group: string) {
  const found = catalog.groups().find((g) => g.group === group && group !== '');
  if (!found) throw pathNotFound();
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.group, found.versions) };
}

function resourceEntries(type: ResourceType) {
  const entry: Record<string, unknown> = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs ?? STANDARD_VERBS,
  };
  if (type.shortNames.length > 0) entry.shortNames = type.shortNames;
  if (type.categories.length > 0) entry.categories = type.categories;
  const subresources = type.subresources.map((sub) => ({
    name: `${type.plural}/${sub.name}`,
    singularName: '',
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: sub.verbs,
  }));
  return [entry, ...subresources];
}

export function resourceList(catalog: Catalog, group: string, version: string) {
  const types = catalog.inGroupVersion(group, version);
  if (types.length === 0 && !(group === '' && version === 'v1')) throw pathNotFound();
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.flatMap(resourceEntries),
  };
}
