/**
 * The dashboard's view of the planes: server-side informers over the same kubeconfig contexts
 * `netpresence trace` reads — `platform`, `hub`, `project-<p>` (else the platform's Milo project
 * path) and one per cell, named after its hub Cluster.
 *
 * Guarantees: read-only — only informers (list and watch) are opened, never a client that
 * writes; a cell plane is followed from the moment a hub Cluster names a context the kubeconfig
 * has, and dropped when the Cluster goes; project planes follow the platform's Ready Projects
 * (PlaneRegistry); `onChange` is called after any store changes, so a reader re-aggregates.
 * Caveat: a Cluster whose context the kubeconfig lacks is shown with no cell data.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { clusterKind, type Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { locationKind } from '../apis/networking/v1alpha/location.ts';
import { networkBindingKind, type NetworkBinding } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextKind, type NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import {
  networkInterfaceClaimKind,
  type NetworkInterfaceClaim,
} from '../apis/networking/v1alpha/network-interface-claim.ts';
import { networkInterfaceKind, type NetworkInterface } from '../apis/networking/v1alpha/network-interface.ts';
import { networkKind, type Network } from '../apis/networking/v1alpha/network.ts';
import { servingLocationKind, type ServingLocation } from '../apis/networking/v1alpha/serving-location.ts';
import { subnetKind, type Subnet } from '../apis/networking/v1alpha/subnet.ts';
import { clusterPropagationPolicyKind } from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { parseKubeConfig, withContext } from '../client/kubeconfig.ts';
import type { KubeObject } from '../client/types.ts';
import { StaticPlane } from '../runtime/manager-context.ts';
import { EVENTS, NAMESPACES, resourceIdOf } from '../runtime/resource-ids.ts';
import type { Clock } from '../runtime/clock.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import type { RunningInformer } from '../runtime/informer.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type ProjectLike } from '../runtime/planes.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT, projectContext } from '../trace/contexts.ts';

export const Kinds = {
  locations: resourceIdOf(locationKind),
  bindings: resourceIdOf(networkBindingKind),
  contexts: resourceIdOf(networkContextKind),
  subnets: resourceIdOf(subnetKind),
  networks: resourceIdOf(networkKind),
  claims: resourceIdOf(networkInterfaceClaimKind),
  interfaces: resourceIdOf(networkInterfaceKind),
  servingLocations: resourceIdOf(servingLocationKind),
  clusters: resourceIdOf(clusterKind),
  policies: resourceIdOf(clusterPropagationPolicyKind),
  namespaces: NAMESPACES,
  events: EVENTS,
};

const HUB_KINDS = [
  'namespaces',
  'bindings',
  'contexts',
  'subnets',
  'policies',
  'clusters',
  'events',
] as const;
const PROJECT_KINDS = ['networks', 'contexts', 'subnets', 'interfaces', 'events'] as const;
const CELL_KINDS = ['servingLocations', 'contexts', 'subnets', 'claims', 'interfaces', 'events'] as const;
const PLATFORM_KINDS = ['locations', 'events'] as const;

/** An events.k8s.io/v1 Event, as far as the dashboard reads it. */
export interface EventObject extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  eventTime?: string;
  regarding?: { kind?: string; namespace?: string; name?: string };
  reportingController?: string;
}

/** What each watched kind's store holds. */
interface KindObjects {
  locations: KubeObject;
  bindings: NetworkBinding;
  contexts: NetworkContext;
  subnets: Subnet;
  networks: Network;
  claims: NetworkInterfaceClaim;
  interfaces: NetworkInterface;
  servingLocations: ServingLocation;
  clusters: Cluster;
  policies: KubeObject;
  namespaces: KubeObject;
  events: EventObject;
}

type Stores<K extends keyof KindObjects> = { [Kind in K]: ObjectStore<KindObjects[Kind]> };
export type PlatformStores = Stores<(typeof PLATFORM_KINDS)[number]> & { projects: ObjectStore<KubeObject> };
export type HubStores = Stores<(typeof HUB_KINDS)[number]>;
export type ProjectStores = Stores<(typeof PROJECT_KINDS)[number]>;
export type CellStores = Stores<(typeof CELL_KINDS)[number]>;

export const dashboardMessages = {
  noContext: (path: string, context: string) =>
    `kubeconfig ${path} has no context "${context}": the dashboard reads the contexts netpresence trace reads (platform, hub, project-<p>, one per cell)`,
};

export interface SourcesOptions {
  kubeconfigPath: string;
  clock: Clock;
  log: Logger;
  onChange: () => void;
}

export class DashboardSources {
  readonly platform: PlatformStores;
  readonly hub: HubStores;
  private readonly base: KubeConfig;
  private readonly platformPlane: StaticPlane;
  private readonly hubPlane: StaticPlane;
  private readonly projectRegistry: PlaneRegistry;
  private readonly projectStores = new Map<string, ProjectStores>();
  private readonly cells = new Map<string, { plane: StaticPlane; stores: CellStores }>();
  private readonly unsubscribes: (() => void)[] = [];

  constructor(private readonly options: SourcesOptions) {
    const { kubeconfigPath: path, clock, log } = options;
    this.base = parseKubeConfig(path);
    const contextOf = (name: string): KubeConfig => {
      if (!this.base.getContexts().some((context) => context.name === name))
        throw new Error(dashboardMessages.noContext(path, name));
      return withContext(this.base, path, name);
    };
    const platformConfig = contextOf(PLATFORM_CONTEXT);
    this.platformPlane = new StaticPlane(PLATFORM_CONTEXT, platformConfig, clock, log);
    this.hubPlane = new StaticPlane(HUB_CONTEXT, contextOf(HUB_CONTEXT), clock, log);
    const projects = this.platformPlane.informer<ProjectLike>(PROJECTS);
    this.platform = { ...this.watched(this.platformPlane, PLATFORM_KINDS), projects: this.watch(projects) };
    this.hub = this.watched(this.hubPlane, HUB_KINDS);
    this.projectRegistry = new PlaneRegistry({
      projects,
      kubeConfigFor: (project) =>
        this.contextIfAny(projectContext(project)) ?? projectKubeConfig(platformConfig, project),
      log,
      clock,
    });
    this.unsubscribes.push(
      this.projectRegistry.subscribe({
        engaged: (plane) => {
          this.projectStores.set(plane.project, this.watched(plane, PROJECT_KINDS));
          options.onChange();
        },
        disengaged: (plane) => {
          this.projectStores.delete(plane.project);
          options.onChange();
        },
      }),
    );
    const clusters = this.hubPlane.informer<Cluster>(Kinds.clusters);
    this.unsubscribes.push(clusters.subscribe(() => this.followCells(clusters.store.list())));
  }

  start(): void {
    this.projectRegistry.start();
  }

  async synced(): Promise<void> {
    await Promise.all([this.platformPlane.synced(), this.hubPlane.synced(), this.projectRegistry.settled()]);
    await Promise.all([...this.cells.values()].map((cell) => cell.plane.synced()));
  }

  project(project: string): ProjectStores | undefined {
    return this.projectStores.get(project);
  }

  projectNames(): string[] {
    return [...this.projectStores.keys()];
  }

  cell(name: string): CellStores | undefined {
    return this.cells.get(name)?.stores;
  }

  cellNames(): string[] {
    return [...this.cells.keys()];
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    await this.projectRegistry.stop();
    await Promise.all([...this.cells.values()].map((cell) => cell.plane.close()));
    await Promise.all([this.platformPlane.close(), this.hubPlane.close()]);
  }

  private contextIfAny(name: string): KubeConfig | undefined {
    if (!this.base.getContexts().some((context) => context.name === name)) return undefined;
    return withContext(this.base, this.options.kubeconfigPath, name);
  }

  private followCells(clusters: KubeObject[]): void {
    const names = new Set(clusters.map((cluster) => cluster.metadata.name!));
    for (const name of names) {
      if (this.cells.has(name)) continue;
      const config = this.contextIfAny(name);
      if (!config) continue;
      const plane = new StaticPlane(name, config, this.options.clock, this.options.log);
      this.cells.set(name, { plane, stores: this.watched(plane, CELL_KINDS) });
    }
    for (const [name, cell] of this.cells)
      if (!names.has(name)) {
        this.cells.delete(name);
        void cell.plane.close();
      }
    this.options.onChange();
  }

  private watch<T extends KubeObject>(informer: RunningInformer<T>): ObjectStore<T> {
    this.unsubscribes.push(informer.subscribe(() => this.options.onChange()));
    return informer.store;
  }

  private watched<K extends keyof KindObjects>(
    plane: Pick<StaticPlane, 'informer'>,
    kinds: readonly K[],
  ): Stores<K> {
    const stores: Partial<Stores<K>> = {};
    for (const kind of kinds) stores[kind] = this.watch(plane.informer<KindObjects[K]>(Kinds[kind]));
    return stores as Stores<K>;
  }
}
