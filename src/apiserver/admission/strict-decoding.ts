/**
 * Strict decoding: what `fieldValidation` does with the problems found while decoding a write —
 * fields given twice in the request body, fields of a JSON patch operation that do not exist, and
 * fields the kind's schema does not declare — for built-in kinds and custom resources alike (one
 * implementation: schema admission calls it for every write).
 *
 * Guarantees, as the Kubernetes API server words and orders them:
 * - `Strict`: one 400 BadRequest `<Kind> in version "<v>" cannot be handled as a <Kind>: strict
 *   decoding error: duplicate field "metadata.name", unknown field "spec.foo"`; nothing is stored;
 * - `Warn` (the default of a request without the parameter): one warning per problem
 *   (`unknown field "spec.foo"`), returned as `Warning: 299 - "…"` headers; the object is stored
 *   without its unknown fields;
 * - `Ignore`: the unknown fields are dropped silently.
 * Order: the body's own problems first (in the order they appear), then the unknown fields of the
 * object the write would store, sorted. On a create or update of a built-in kind, a field that is
 * both unknown and given twice is reported once, as unknown (Kubernetes' typed decoder does so).
 * Caveat: Kubernetes' typed decoder interleaves duplicate and unknown fields in document order on
 * a create or update of a built-in kind; here the duplicates come first.
 */
import { badRequest } from '../errors.ts';
import type { AdmissionRequest } from './plugins.ts';

export type { BodyDecoding } from './plugins.ts';

export function duplicateProblem(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}

export function unknownProblem(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** Reports the body's problems and `unknownFields` (sorted paths) as `fieldValidation` asks. */
export function reportStrictDecoding(request: AdmissionRequest, unknownFields: string[]): void {
  const body = request.decoding;
  let own = body?.problems ?? [];
  if (body && !body.patch && !request.type.customResource) {
    const unknown = new Set(unknownFields);
    const dropped = new Set(body.duplicates.filter((path) => unknown.has(path)).map(duplicateProblem));
    own = own.filter((problem) => !dropped.has(problem));
  }
  const problems = [...own, ...unknownFields.map(unknownProblem)];
  if (problems.length === 0) return;
  switch (request.fieldValidation) {
    case 'Strict': {
      const { kind, version } = request.type;
      throw badRequest(
        `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(', ')}`,
      );
    }
    case 'Warn':
      request.warnings.push(...problems);
      return;
    case 'Ignore':
      return;
  }
}
