/**
 * The hops after a claim's interface (controllers.md §13): the interface's hub copy
 * `<interface>.<cell>`, written back by the cell, and its project copy, projected by the manager
 * next to the Network.
 *
 * Guarantees: a copy is a view, never a precondition of the claim — a missing copy is `waiting`
 * (its controller has not written it yet), never `missing` or `refusing`; a copy that shows
 * another phase than the interface is `waiting` too. With no interface, or no project the
 * namespace routes to, the copies are `unchecked`.
 */
import { interfaceCopyName } from '../apis/networking/v1alpha/interface-copy.ts';
import type { NetworkInterface } from '../apis/networking/v1alpha/network-interface.ts';
import { HUB_CONTEXT, projectContext } from './contexts.ts';
import { qualified, unchecked, type Hop, type HopId, type Route } from './hop.ts';
import { probeGet } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

const WRITE_BACK = (cell: string) => `the interface write-back of \`netpresence cell\` for cell "${cell}"`;
const PROJECTOR = 'the interface projector of `netpresence manager`';

export const copyNotes = {
  noInterface: 'the interface does not exist yet',
  noProject: 'the namespace routes to no project',
  behind: (phase: string | undefined) => `shows phase ${phase ?? '(none)'}; its source has changed since`,
};

export const copyAdvice = {
  hubCopyWaiting: (cell: string, namespace: string) =>
    `the hub copy is written by ${WRITE_BACK(cell)}: check that it runs with --hub-kubeconfig and that hub namespace "${namespace}" exists`,
  projectCopyWaiting: (project: string, network: string) =>
    `the project copy is written by ${PROJECTOR}: check that it runs, that project "${project}" is Ready and that Network "${network}" exists and is not being deleted`,
};

export async function interfaceCopyHops(
  reader: PlaneReader,
  cell: string,
  namespace: string,
  iface: NetworkInterface | undefined,
  route: Route | undefined,
): Promise<Hop[]> {
  const name = iface ? interfaceCopyName(iface.metadata.name ?? '', cell) : `?.${cell}`;
  const hubObject = `NetworkInterface ${qualified(name, namespace)}`;
  if (!iface)
    return [
      unchecked('interface-hub-copy', HUB_CONTEXT, hubObject, copyNotes.noInterface),
      unchecked('interface-project-copy', '?', `NetworkInterface ${name}`, copyNotes.noInterface),
    ];
  const hub = await copyHop(reader, 'interface-hub-copy', HUB_CONTEXT, name, namespace, iface, () =>
    copyAdvice.hubCopyWaiting(cell, namespace),
  );
  if (!route)
    return [hub, unchecked('interface-project-copy', '?', `NetworkInterface ${name}`, copyNotes.noProject)];
  const project = await copyHop(
    reader,
    'interface-project-copy',
    projectContext(route.project),
    name,
    route.projectNamespace,
    iface,
    () => copyAdvice.projectCopyWaiting(route.project, iface.spec.network.name),
  );
  return [hub, project];
}

async function copyHop(
  reader: PlaneReader,
  id: HopId,
  plane: string,
  name: string,
  namespace: string,
  iface: NetworkInterface,
  adviceFor: () => string,
): Promise<Hop> {
  const hop: Hop = { id, plane, object: `NetworkInterface ${qualified(name, namespace)}`, state: 'ok' };
  const found = await probeGet<NetworkInterface>(reader, plane, Kinds.networkInterface, name, namespace);
  if (!found.found) return { ...hop, state: 'unreachable', note: found.unreachable };
  const copy = found.value;
  if (!copy) return { ...hop, state: 'waiting', advice: adviceFor() };
  if (copy.status?.phase !== iface.status?.phase)
    return { ...hop, state: 'waiting', note: copyNotes.behind(copy.status?.phase), advice: adviceFor() };
  return hop;
}
