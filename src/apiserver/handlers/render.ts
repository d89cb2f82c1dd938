/**
 * Renders objects in the form the client asked for: the object itself, or a meta.k8s.io Table
 * (server-side printing) when the Accept header asks for one.
 */
import type { KubeObject } from '../objects.ts';
import { apiVersionOf } from '../resources/resource-type.ts';
import { buildTable, parseIncludeObject } from '../table/table.ts';
import { negotiate } from '../table/negotiation.ts';
import { warningHeaders, writeJson } from '../http/io.ts';
import type { ResourceRequest } from './context.ts';

export function wantsTable(r: ResourceRequest): boolean {
  return negotiate(r.req.headers.accept, { tableAvailable: true }) === 'table';
}

export function tableOf(
  r: ResourceRequest,
  objects: KubeObject[],
  resourceVersion: string,
  options: { continue?: string; omitColumnDefinitions?: boolean } = {},
) {
  return buildTable(r.type.columns, objects, {
    includeObject: parseIncludeObject(r.query.get('includeObject') ?? undefined),
    resourceVersion,
    continue: options.continue,
    now: r.plane.now(),
    omitColumnDefinitions: options.omitColumnDefinitions,
  });
}

export function respondObject(r: ResourceRequest, code: number, object: KubeObject): void {
  const headers = warningHeaders(r.warnings);
  if (wantsTable(r)) {
    writeJson(r.res, code, tableOf(r, [object], object.metadata.resourceVersion ?? ''), headers);
  } else {
    writeJson(r.res, code, object, headers);
  }
}

export function respondList(
  r: ResourceRequest,
  items: KubeObject[],
  resourceVersion: string,
  continueToken?: string,
) {
  if (wantsTable(r)) {
    writeJson(r.res, 200, tableOf(r, items, resourceVersion, { continue: continueToken }));
    return;
  }
  const metadata: Record<string, unknown> = { resourceVersion };
  if (continueToken) metadata.continue = continueToken;
  writeJson(r.res, 200, {
    apiVersion: apiVersionOf(r.type),
    kind: r.type.listKind,
    metadata,
    items,
  });
}
