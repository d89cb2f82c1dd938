/**
 * What every resource handler receives: the plane, the resolved resource type, the target
 * (namespace, name, subresource) and the request itself.
 */
import type { ServerReply, ServerRequest } from '../http/exchange.ts';
import type { Plane } from '../plane.ts';
import type { ResourceType } from '../resources/resource-type.ts';

export interface ResourceRequest {
  req: ServerRequest;
  res: ServerReply;
  plane: Plane;
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
  /** The authenticated identity's name. */
  user: string;
  /** The authenticated identity's groups. */
  groups: string[];
  /** Admission warnings collected while serving, sent as `Warning` headers. */
  warnings: string[];
}
