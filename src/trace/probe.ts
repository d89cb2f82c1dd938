/**
 * Probing: one read through a PlaneReader that turns an unreachable plane into a value, so a
 * trace records the plane as a hop instead of stopping.
 *
 * Guarantees: only PlaneUnavailableError becomes `{ unreachable }`; any other error propagates.
 */
import type { KubeObject, ResourceId } from '../client/types.ts';
import { PlaneUnavailableError, type PlaneReader } from './reader.ts';

export type Probe<T> = { found: true; value: T } | { found: false; unreachable: string };

async function probe<T>(read: () => Promise<T>): Promise<Probe<T>> {
  try {
    return { found: true, value: await read() };
  } catch (err) {
    if (err instanceof PlaneUnavailableError) return { found: false, unreachable: err.message };
    throw err;
  }
}

export function probeGet<T extends KubeObject>(
  reader: PlaneReader,
  plane: string,
  kind: ResourceId,
  name: string,
  namespace?: string,
): Promise<Probe<T | undefined>> {
  return probe(() => reader.get<T>(plane, kind, name, namespace));
}

export function probeList<T extends KubeObject>(
  reader: PlaneReader,
  plane: string,
  kind: ResourceId,
  options?: { namespace?: string; labelSelector?: string },
): Promise<Probe<T[]>> {
  return probe(() => reader.list<T>(plane, kind, options));
}
