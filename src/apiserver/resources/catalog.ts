/**
 * The catalog of one plane: which resources it serves right now — the built-ins plus every
 * served version of every established CRD stored in the plane.
 *
 * Guarantees: the catalog follows the plane's CRDs synchronously: once a CRD write returns,
 * its kind is served (or no longer served) and discovery and OpenAPI reflect it. `revision`
 * changes whenever the set of served types changes, so documents derived from it can be cached.
 */
import type { KubeObject } from '../objects.ts';
import type { RevisionLog } from '../storage/revision-log.ts';
import { builtinTypes } from './builtins.ts';
import { CRD_GROUP, isEstablished, typesOfCrd } from './crd.ts';
import type { ResourceType } from './resource-type.ts';

export const CRD_STORAGE = `${CRD_GROUP}/customresourcedefinitions`;

export interface GroupVersions {
  group: string;
  /** Served versions, the preferred (storage) one first. */
  versions: string[];
}

/**
 * The types of each stored CRD, by the stored object: a stored object never changes, so its
 * types are made once, not again at every rebuild (each CRD a plane installs rebuilds the catalog
 * from all of them).
 */
const typesByCrd = new WeakMap<KubeObject, ResourceType[]>();

function typesOf(crd: KubeObject): ResourceType[] {
  let types = typesByCrd.get(crd);
  if (!types) typesByCrd.set(crd, (types = typesOfCrd(crd)));
  return types;
}

export class Catalog {
  private types = new Map<string, ResourceType>();
  private served: ResourceType[] = [];
  private changes = 0;
  private readonly unsubscribe: () => void;

  /** `onServed` is told each custom type served, whenever the served set is rebuilt. */
  constructor(
    private readonly log: RevisionLog,
    private readonly onServed: (type: ResourceType) => void = () => {},
  ) {
    this.rebuild();
    this.unsubscribe = log.watch(CRD_STORAGE, log.revision, () => this.rebuild());
  }

  /** Increases whenever the served set changes. */
  get revision(): number {
    return this.changes;
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${plural}`);
  }

  all(): readonly ResourceType[] {
    return this.served;
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.served.filter((t) => t.group === group && t.version === version);
  }

  /** Every served group with its versions; the core group ('') is included. */
  groups(): GroupVersions[] {
    const byGroup = new Map<string, string[]>();
    for (const type of this.served) {
      const versions = byGroup.get(type.group) ?? [];
      if (!versions.includes(type.version)) versions.push(type.version);
      byGroup.set(type.group, versions);
    }
    return [...byGroup].map(([group, versions]) => ({ group, versions }));
  }

  /** Every served type storing its objects in `storage` (the versions of one CRD). */
  typesOfStorage(storage: string): ResourceType[] {
    return this.served.filter((t) => t.storage === storage);
  }

  close(): void {
    this.unsubscribe();
  }

  private rebuild(): void {
    const custom = this.log
      .list(CRD_STORAGE)
      .filter(isEstablished)
      .flatMap((crd) => typesOf(crd));
    const next = [
      ...builtinTypes,
      ...custom.filter((t) => !builtinTypes.some((b) => b.storage === t.storage)),
    ];
    const byPath = new Map(next.map((t) => [`${t.group}/${t.version}/${t.plural}`, t]));
    this.types = byPath;
    this.served = next;
    this.changes++;
    for (const type of custom) this.onServed(type);
  }
}
