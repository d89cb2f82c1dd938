/**
 * The scenario harness: builds, in one process, the planes a scenario needs — the platform (the
 * embedded server's root plane), the hub, project planes at the Milo path and cells — serves them
 * over real HTTPS, installs each plane's CRDs, and runs the named controllers against them with
 * real clients through the same ManagerContext `netpresence manager` builds.
 *
 * A project added with `addProject` is what the platform would provide: a Ready `Project`, its
 * plane with the project CRDs, the IPAM allocation hook and the default IPAM configuration, and
 * the namespace `default`. `hubNamespace` stands in for the consumer platform creating the hub
 * namespace `ns-<uid>` of a project namespace, with its upstream labels.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cellCrds, hubCrds, platformCrds, projectCrds } from '../../src/apis/crds.ts';
import type { CustomResourceDefinition } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import {
  hubNamespaceName,
  upstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../src/apis/common/upstream.ts';
import { defaultIpClasses, defaultRootPools } from '../../src/apis/ipam/v1alpha1/default-set.ts';
import { writeKubeconfig as writeKubeconfigFile } from '../../src/apiserver/auth/kubeconfig.ts';
import { ApiServer, ROOT_PLANE } from '../../src/apiserver/server.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../../src/client/types.ts';
import {
  StaticPlane,
  type ControllerDefinition,
  type ManagerContext,
} from '../../src/runtime/manager-context.ts';
import { ipamAdmission } from '../../src/ipam/hook.ts';
import { systemClock, type Clock } from '../../src/runtime/clock.ts';
import type { RunnableController } from '../../src/runtime/controller.ts';
import { rootLogger } from '../../src/runtime/logging.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type ProjectLike } from '../../src/runtime/planes.ts';
import { loadKubeConfig } from '../../src/client/kubeconfig.ts';

export const NAMESPACES: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
const IP_CLASSES: ResourceId = {
  group: 'ipam.miloapis.com',
  version: 'v1alpha1',
  kind: 'IPClass',
  plural: 'ipclasses',
  namespaced: false,
};
const IP_POOLS: ResourceId = {
  group: 'ipam.miloapis.com',
  version: 'v1alpha1',
  kind: 'IPPool',
  plural: 'ippools',
  namespaced: false,
};

export interface ScenarioOptions {
  /** Projects to add at start (see `addProject`). */
  projects?: string[];
  /** Cell planes (served at /planes/<name>, with the cell CRDs). */
  cells?: string[];
  /** Controllers to run once the planes are ready. */
  controllers?: ControllerDefinition[];
  /** The controllers' clock; a FakeClock for scenarios that advance time. */
  clock?: Clock;
  /** The API server's `--audit-log`. */
  auditLog?: string;
}

export interface Scenario {
  server: ApiServer;
  ctx: ManagerContext;
  /** A KubeConfig for 'platform', 'hub', 'project-<p>' or a cell. */
  kubeConfig(plane: string): KubeConfig;
  client<T extends KubeObject = KubeObject>(plane: string, id: ResourceId): ResourceClient<T>;
  addProject(name: string): Promise<void>;
  /** Deletes the Project and stops serving its plane. */
  removeProject(name: string): Promise<void>;
  /** Creates (once) the hub namespace of `project`/`namespace`; returns its name. */
  hubNamespace(project: string, namespace?: string): Promise<string>;
  stop(): Promise<void>;
}

const planeContext = (plane: string): string => (plane === 'platform' ? ROOT_PLANE : plane);

export async function startScenario(options: ScenarioOptions = {}): Promise<Scenario> {
  const clock = options.clock ?? systemClock;
  const log = rootLogger({ level: (process.env.LOG_LEVEL as 'info' | undefined) ?? 'silent' });
  const server = await ApiServer.start({ log, auditLog: options.auditLog });
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-scenario-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  // Atomic (temp file + rename): the plane registry may read it while a project is being added.
  const writeKubeconfig = () => writeKubeconfigFile(kubeconfigPath, server.kubeconfig());

  server.addPlane('hub');
  for (const cell of options.cells ?? []) server.addPlane(cell);
  await writeKubeconfig();
  const kubeConfig = (plane: string) => loadKubeConfig(kubeconfigPath, planeContext(plane));
  const client = <T extends KubeObject>(plane: string, id: ResourceId) =>
    resourceClient<T>(kubeConfig(plane), id);
  const install = (plane: string, crds: CustomResourceDefinition[]) => installCrds(kubeConfig(plane), crds);

  await install('platform', platformCrds);
  await install('hub', hubCrds);
  for (const cell of options.cells ?? []) await install(cell, cellCrds);

  const platform = new StaticPlane('platform', kubeConfig('platform'), clock, log);
  const hub = new StaticPlane('hub', kubeConfig('hub'), clock, log);
  const projects = new PlaneRegistry({
    projects: platform.informer<ProjectLike>(PROJECTS),
    kubeConfigFor: (project) => projectKubeConfig(kubeConfig('platform'), project),
    log,
    clock,
  });
  const ctx: ManagerContext = {
    platform,
    hub,
    projects,
    clock,
    log,
    metrics: new RuntimeMetrics(new Registry()),
  };
  projects.start();

  const projectsClient = client<ProjectLike>('platform', PROJECTS);

  async function addProject(name: string): Promise<void> {
    const plane = server.addProjectPlane(name);
    plane.addAdmission(ipamAdmission(plane));
    await writeKubeconfig();
    const planeName = `project-${name}`;
    await install(planeName, projectCrds);
    const classes = client(planeName, IP_CLASSES);
    for (const ipClass of defaultIpClasses) await classes.create(structuredClone(ipClass));
    const pools = client(planeName, IP_POOLS);
    for (const pool of defaultRootPools) await pools.create(structuredClone(pool));
    const project = await projectsClient.create({
      metadata: { name },
      spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
    });
    await projectsClient.patchMerge(
      name,
      undefined,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Ready',
              message: 'Project is ready',
              observedGeneration: project.metadata.generation ?? 1,
              lastTransitionTime: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            },
          ],
        },
      },
      { subresource: 'status' },
    );
  }

  async function removeProject(name: string): Promise<void> {
    await projectsClient.delete(name);
    server.removePlane(`project-${name}`);
    await writeKubeconfig();
  }

  async function hubNamespace(project: string, namespace = 'default'): Promise<string> {
    const projectNamespace = await client(`project-${project}`, NAMESPACES).get(namespace);
    if (!projectNamespace) throw new Error(`project ${project} has no namespace ${namespace}`);
    const name = hubNamespaceName(projectNamespace.metadata.uid!);
    const hubNamespaces = client('hub', NAMESPACES);
    if (!(await hubNamespaces.get(name))) {
      await hubNamespaces.create({
        metadata: {
          name,
          labels: {
            [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(project),
            [UPSTREAM_NAMESPACE_LABEL]: namespace,
          },
        },
      });
    }
    return name;
  }

  for (const project of options.projects ?? []) await addProject(project);
  const controllers: RunnableController[] = (options.controllers ?? []).map((definition) =>
    definition.build(ctx),
  );
  await Promise.all([platform.synced(), hub.synced(), projects.settled()]);
  for (const controller of controllers) await controller.start();

  return {
    server,
    ctx,
    kubeConfig,
    client,
    addProject,
    removeProject,
    hubNamespace,
    async stop() {
      for (const controller of controllers) await controller.stop();
      await projects.stop();
      await Promise.all([platform.close(), hub.close()]);
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
