/**
 * Adding and removing one finalizer on an object without clobbering anyone else's.
 *
 * Guarantees: the write is a JSON patch that touches only `/metadata/finalizers`, guarded by a
 * `test` of what the caller observed, so it applies only if nobody changed the finalizers since:
 * - when the observed object has finalizers, the patch tests the whole list (changes to other
 *   fields, such as status, do not get in the way);
 * - when it has none, the patch tests `/metadata/finalizers` for `null`, which passes only while
 *   the field is absent (the Go library's JSON patch, and so kube-apiserver's, matches an absent
 *   field to `null`; so does the embedded server's). A status or label write since the read does
 *   not refuse it: a controller adding its finalizer to an object another controller is writing
 *   status to (the replicator and the networkcontext controller on a new context, every time)
 *   used to lose a round trip to a 409 and a re-read.
 * - when the observed object has a uid, the patch also tests it: an object deleted and created
 *   again under the same name since the read (a Work its binding rebuilt) can carry the very same
 *   finalizers, and a removal meant for the old one would release the new one, which then goes at
 *   its deletion without its cleanup (an execution copy left on a member, found by the process
 *   kills chaos test).
 * A failed test (the server answers 422) is rethrown as a ConflictError, as a stale update would
 * be: re-read and retry (retryOnConflict), or let the controller requeue. When the object is
 * already in the desired state no request is made and the object itself is returned; otherwise
 * the server's updated object is.
 * Assumes: the object has metadata.name (and namespace, if namespaced).
 */
import { ConflictError, isInvalid } from '../client/errors.ts';
import type { JsonPatchOperation, KubeObject, ResourceClient } from '../client/types.ts';

const FINALIZERS = '/metadata/finalizers';
const UID = '/metadata/uid';

export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata.finalizers?.includes(finalizer) ?? false;
}

export async function ensureFinalizer<T extends KubeObject>(
  client: ResourceClient<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  if (hasFinalizer(object, finalizer)) return object;
  return patchFinalizers(client, object, [...(object.metadata.finalizers ?? []), finalizer]);
}

export async function removeFinalizer<T extends KubeObject>(
  client: ResourceClient<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  if (!hasFinalizer(object, finalizer)) return object;
  return patchFinalizers(
    client,
    object,
    object.metadata.finalizers!.filter((f) => f !== finalizer),
  );
}

async function patchFinalizers<T extends KubeObject>(
  client: ResourceClient<T>,
  object: T,
  finalizers: string[],
): Promise<T> {
  const guards: JsonPatchOperation[] = [
    ...(object.metadata.uid ? [{ op: 'test' as const, path: UID, value: object.metadata.uid }] : []),
    { op: 'test', path: FINALIZERS, value: object.metadata.finalizers ?? null },
  ];
  const change: JsonPatchOperation =
    finalizers.length > 0
      ? { op: 'add', path: FINALIZERS, value: finalizers }
      : { op: 'remove', path: FINALIZERS };
  try {
    return await client.patchJson(object.metadata.name!, object.metadata.namespace, [...guards, change]);
  } catch (err) {
    if (isFailedTest(err, guards)) {
      throw new ConflictError(409, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: staleFinalizers(client, object, err.message),
      });
    }
    throw err;
  }
}

/** The server refused the patch because one of our `test`s failed (evanphx/json-patch wording). */
function isFailedTest(err: unknown, guards: JsonPatchOperation[]): err is Error {
  return (
    isInvalid(err) && /\btest/.test(err.message) && guards.some((guard) => err.message.includes(guard.path))
  );
}

const staleFinalizers = (client: ResourceClient, object: KubeObject, cause: string) =>
  `Operation cannot be fulfilled on ${client.id.plural} "${object.metadata.name}": its finalizers ` +
  `changed, or it was replaced, since it was read (${cause}); read it again and retry`;
