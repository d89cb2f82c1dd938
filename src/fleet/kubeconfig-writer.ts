/**
 * Kubeconfig writer: keeps the fleet's kubeconfig file naming every plane the fleet serves.
 *
 * Contexts, all but the last three kinds as the admin identity:
 * - `platform` (the root plane), `hub`, `project-<name>` for each provisioned project plane, and
 *   each cell by its name (`cell-…`);
 * - `project-<name>-as-consumer`: the hub as `consumer-<name>`, its namespace the hub namespace
 *   of the project's namespace `default`;
 * - `<cell>-as-cell`: the cell plane as that cell's own identity;
 * - `hub-as-<cell>` and `platform-as-<cell>`: the hub and the platform (whose URL is the IPAM
 *   base of project planes) as that cell's own account there (identities.ts).
 * The current context is `hub`, where consumers declare bindings.
 *
 * Guarantees: the promise of every `write()` resolves once the file holds the state of that
 * moment or later; writes replace the file atomically (mode 0600), one at a time, so a reader
 * never sees a half-written file and the last state wins. Calls made while a write is waiting
 * share it (it renders when it starts), so a burst of N project planes costs two writes, not N —
 * each file names every plane, and N full rewrites would cost O(N²); and a call when nothing
 * changed since the last write started shares that write (a Project's every status update
 * asks), so an unchanged fleet rewrites nothing.
 */
import { renderKubeconfig, writeKubeconfig, type KubeconfigContext } from '../apiserver/auth/kubeconfig.ts';
import { ROOT_PLANE, type ApiServer } from '../apiserver/server.ts';

export const PLATFORM_CONTEXT = 'platform';
export const HUB_CONTEXT = 'hub';
export const consumerContext = (project: string): string => `project-${project}-as-consumer`;
export const cellContext = (cell: string): string => `${cell}-as-cell`;
export const cellAbroadContexts = (cell: string) => ({
  hub: `hub-as-${cell}`,
  platform: `platform-as-${cell}`,
});

export interface ProjectAccess {
  consumerToken: string;
  /** The hub namespace of the project's namespace `default`. */
  hubNamespace: string;
}

export class KubeconfigWriter {
  private readonly projects = new Map<string, ProjectAccess>();
  private queue: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | undefined;
  /** Counts changes to what the file names; `rendered` is the count the last write started at. */
  private changes = 0;
  private rendered = -1;

  constructor(
    readonly path: string,
    private readonly server: ApiServer,
    private readonly cells: ReadonlyMap<string, string>,
    /** Each cell's token on the hub and the platform. */
    private readonly cellsAbroad: ReadonlyMap<string, string> = new Map(),
  ) {}

  setProject(project: string, access: ProjectAccess): void {
    const held = this.projects.get(project);
    if (held?.consumerToken === access.consumerToken && held.hubNamespace === access.hubNamespace) return;
    this.projects.set(project, access);
    this.changes++;
  }

  removeProject(project: string): void {
    if (this.projects.delete(project)) this.changes++;
  }

  projectNames(): string[] {
    return [...this.projects.keys()].sort();
  }

  render(): string {
    const admin = this.server.adminToken;
    const contexts: KubeconfigContext[] = [
      { name: PLATFORM_CONTEXT, server: this.server.url(ROOT_PLANE), token: admin },
      { name: HUB_CONTEXT, server: this.server.url('hub'), token: admin },
    ];
    for (const project of this.projectNames()) {
      const plane = `project-${project}`;
      if (this.server.plane(plane))
        contexts.push({ name: plane, server: this.server.url(plane), token: admin });
    }
    for (const cell of this.cells.keys())
      contexts.push({ name: cell, server: this.server.url(cell), token: admin });
    for (const project of this.projectNames()) {
      const access = this.projects.get(project)!;
      contexts.push({
        name: consumerContext(project),
        server: this.server.url('hub'),
        token: access.consumerToken,
        namespace: access.hubNamespace,
      });
    }
    for (const [cell, token] of this.cells)
      contexts.push({ name: cellContext(cell), server: this.server.url(cell), token });
    for (const [cell, token] of this.cellsAbroad) {
      const names = cellAbroadContexts(cell);
      contexts.push({ name: names.hub, server: this.server.url('hub'), token });
      contexts.push({ name: names.platform, server: this.server.url(ROOT_PLANE), token });
    }
    return renderKubeconfig(this.server.certificates.caCertPem, contexts, HUB_CONTEXT);
  }

  /** Rewrites the file with every plane served now; resolves once it is on disk. */
  write(): Promise<void> {
    if (this.waiting) return this.waiting;
    if (this.rendered === this.changes) return this.queue;
    const next = this.queue.then(() => {
      this.waiting = undefined;
      const changes = this.changes;
      this.rendered = changes;
      return writeKubeconfig(this.path, this.render()).catch((err: unknown) => {
        if (this.rendered === changes) this.rendered = -1; // not on disk: the next call writes again
        throw err;
      });
    });
    this.waiting = next;
    this.queue = next.catch(() => undefined);
    return next;
  }
}
