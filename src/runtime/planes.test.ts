import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { FakeResource } from '../../test/support/fake-resource-client.ts';
import { FakeClock } from './clock.ts';
import { createInformer } from './informer.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type EngagedPlane, type ProjectLike } from './planes.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const silent = pino({ level: 'silent' });

function project(name: string, ready: 'True' | 'False' | undefined, uid?: string): ProjectLike {
  const status = ready ? { conditions: [{ type: 'Ready', status: ready }] } : undefined;
  return { metadata: { name, ...(uid ? { uid } : {}) }, ...(status ? { status } : {}) };
}

function platform(server = 'https://milo.example:6443'): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      { name: 'milo', server, skipTLSVerify: false },
      { name: 'other', server: 'https://other.example', skipTLSVerify: false },
    ],
    users: [{ name: 'admin', token: 'secret' }],
    contexts: [{ name: 'milo', cluster: 'milo', user: 'admin' }],
    currentContext: 'milo',
  });
  return kubeConfig;
}

function setup() {
  const clock = new FakeClock();
  const projects = new FakeResource<ProjectLike>(PROJECTS);
  const planeResources = new Map<string, FakeResource>();
  const configMapsOf = (server: string): FakeResource => {
    if (!planeResources.has(server)) planeResources.set(server, new FakeResource(CONFIGMAPS));
    return planeResources.get(server)!;
  };
  const informer = createInformer<ProjectLike>({
    plane: 'platform',
    client: projects.client(),
    clock,
    log: silent,
  });
  const timeline: string[] = [];
  const registry = new PlaneRegistry({
    projects: informer,
    kubeConfigFor: (name) => projectKubeConfig(platform(), name),
    log: silent,
    clock,
    clientFor: (kubeConfig) => configMapsOf(kubeConfig.getCurrentCluster()!.server).client(),
    onEngage(plane) {
      timeline.push(`engaged ${plane.name}`);
      plane.informer(CONFIGMAPS);
    },
    onDisengage(plane) {
      timeline.push(`disengaged ${plane.name}`);
    },
  });
  const watchesOf = (name: string): number =>
    configMapsOf(
      `https://milo.example:6443/apis/resourcemanager.miloapis.com/v1alpha1/projects/${name}/control-plane`,
    ).openWatches;
  const settle = async (): Promise<void> => {
    await clock.advance(0);
    await registry.settled();
    await clock.advance(0);
  };
  informer.start();
  registry.start();
  return { clock, projects, informer, registry, timeline, watchesOf, settle };
}

describe('PlaneRegistry', () => {
  it('engages a project plane when its Project becomes Ready and disengages it when it stops being Ready', async () => {
    const { projects, registry, timeline, watchesOf, settle, informer } = setup();
    projects.put(project('p1', 'False'));
    await settle();
    assert.deepEqual(timeline, []);

    projects.put(project('p1', 'True'));
    await settle();
    const plane = registry.get('p1')!;
    assert.equal(plane.name, 'project-p1');
    assert.equal(plane.project, 'p1');
    assert.equal(watchesOf('p1'), 1);

    projects.put(project('p1', 'False'));
    await settle();
    assert.deepEqual(timeline, ['engaged project-p1', 'disengaged project-p1']);
    assert.equal(plane.signal.aborted, true);
    assert.equal(registry.get('p1'), undefined);
    assert.equal(watchesOf('p1'), 0);
    assert.throws(() => plane.informer(CONFIGMAPS), /plane project-p1 is disengaged/);
    await registry.stop();
    await informer.stop();
  });

  it('disengages a deleted Project and engages a recreated one afresh', async () => {
    const { projects, registry, timeline, settle, informer } = setup();
    projects.put(project('p1', 'True', 'first'));
    await settle();
    projects.remove(undefined, 'p1');
    await settle();
    assert.equal(registry.get('p1'), undefined);

    projects.put(project('p1', 'True', 'first'));
    await settle();
    projects.put(project('p1', 'True', 'second'));
    await settle();
    assert.equal(registry.get('p1')!.uid, 'second');
    assert.deepEqual(timeline, [
      'engaged project-p1',
      'disengaged project-p1',
      'engaged project-p1',
      'disengaged project-p1',
      'engaged project-p1',
    ]);
    await registry.stop();
    await informer.stop();
  });

  it('disengages a Project that is being deleted', async () => {
    const { projects, registry, settle, informer } = setup();
    projects.put(project('p1', 'True'));
    await settle();
    const terminating = project('p1', 'True');
    terminating.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
    projects.put(terminating);
    await settle();
    assert.equal(registry.get('p1'), undefined);
    await registry.stop();
    await informer.stop();
  });

  it('shares one informer per resource within a plane', async () => {
    const { projects, registry, settle, watchesOf, informer } = setup();
    projects.put(project('p1', 'True'));
    await settle();
    const plane = registry.get('p1')!;
    const first = plane.informer<KubeObject>(CONFIGMAPS);
    const again = plane.informer<KubeObject>(CONFIGMAPS, { indexes: { name: (o) => [o.metadata.name!] } });
    assert.equal(first, again);
    assert.equal(watchesOf('p1'), 1);
    await registry.stop();
    await informer.stop();
  });

  it('shares one client per resource within a plane, and a plane does not share it with another', async () => {
    const { projects, registry, settle, informer } = setup();
    projects.put(project('p1', 'True'));
    projects.put(project('p2', 'True'));
    await settle();
    const [p1, p2] = [registry.get('p1')!, registry.get('p2')!];
    assert.equal(p1.client(CONFIGMAPS), p1.client(CONFIGMAPS));
    assert.notEqual(p1.client(CONFIGMAPS), p1.client(PROJECTS));
    assert.notEqual(p1.client(CONFIGMAPS), p2.client(CONFIGMAPS));
    await registry.stop();
    await informer.stop();
  });

  it('tells a late listener of the planes already engaged, and stop disengages every plane', async () => {
    const { projects, registry, settle, watchesOf, informer } = setup();
    projects.put(project('p1', 'True'));
    projects.put(project('p2', 'True'));
    await settle();
    const told: string[] = [];
    registry.subscribe({
      engaged: (plane: EngagedPlane) => void told.push(`engaged ${plane.name}`),
      disengaged: (plane: EngagedPlane) => void told.push(`disengaged ${plane.name}`),
    });
    await registry.stop();
    assert.deepEqual(told.sort(), [
      'disengaged project-p1',
      'disengaged project-p2',
      'engaged project-p1',
      'engaged project-p2',
    ]);
    assert.deepEqual(registry.list(), []);
    assert.equal(watchesOf('p1') + watchesOf('p2'), 0);
    await informer.stop();
  });
});

describe('projectKubeConfig', () => {
  it('points the current cluster at the Milo project control-plane path and keeps the credentials', () => {
    const kubeConfig = projectKubeConfig(platform('https://milo.example:6443/'), 'p1');
    assert.equal(
      kubeConfig.getCurrentCluster()!.server,
      'https://milo.example:6443/apis/resourcemanager.miloapis.com/v1alpha1/projects/p1/control-plane',
    );
    assert.equal(kubeConfig.getCurrentUser()!.token, 'secret');
    assert.equal(kubeConfig.getCluster('other')!.server, 'https://other.example');
  });
});
