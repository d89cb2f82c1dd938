/**
 * A PlaneReader over objects held in memory, for tests of the trace logic: objects are put per
 * plane; a plane can be made unreadable.
 *
 * Guarantees: `get` and `list` answer as the kubeconfig reader would — undefined for a missing
 * object, PlaneUnavailableError for a plane never added or made unreadable; `list` honours the
 * namespace and an equality label selector (`k=v[,k=v]`). Returned objects are copies.
 */
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { PlaneUnavailableError, type PlaneReader } from '../../src/trace/reader.ts';

export class FakePlaneReader implements PlaneReader {
  private readonly planes = new Map<string, Map<string, KubeObject>>();
  private readonly unreadable = new Set<string>();

  /** A readable plane, empty until objects are put into it. */
  addPlane(plane: string): this {
    if (!this.planes.has(plane)) this.planes.set(plane, new Map());
    return this;
  }

  put(plane: string, kind: ResourceId, object: KubeObject): this {
    const objects = this.addPlane(plane).planes.get(plane)!;
    objects.set(key(kind, object.metadata.name ?? '', object.metadata.namespace), structuredClone(object));
    return this;
  }

  remove(plane: string, kind: ResourceId, name: string, namespace?: string): this {
    this.planes.get(plane)?.delete(key(kind, name, namespace));
    return this;
  }

  /** Every read of `plane` fails as an unreachable plane does. */
  cutOff(plane: string): this {
    this.unreadable.add(plane);
    return this;
  }

  async get<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    const found = this.objects(plane).get(key(kind, name, namespace));
    return found ? (structuredClone(found) as T) : undefined;
  }

  async list<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    options: { namespace?: string; labelSelector?: string } = {},
  ): Promise<T[]> {
    const wanted = (options.labelSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('='));
    const prefix = `${kind.group}/${kind.kind}/`;
    return [...this.objects(plane).entries()]
      .filter(([k]) => k.startsWith(prefix))
      .map(([, object]) => object)
      .filter((object) => options.namespace === undefined || object.metadata.namespace === options.namespace)
      .filter((object) => wanted.every(([k, v]) => object.metadata.labels?.[k] === v))
      .map((object) => structuredClone(object) as T);
  }

  private objects(plane: string): Map<string, KubeObject> {
    const objects = this.planes.get(plane);
    if (!objects || this.unreadable.has(plane))
      throw new PlaneUnavailableError(plane, `no context "${plane}" in the test's planes`);
    return objects;
  }
}

function key(kind: ResourceId, name: string, namespace: string | undefined): string {
  return `${kind.group}/${kind.kind}/${kind.namespaced ? (namespace ?? '') : ''}/${name}`;
}
