import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { FakeResource } from '../../../test/support/fake-resource-client.ts';
import type { KubeObject, ResourceId } from '../../client/types.ts';
import { FakeClock } from '../../runtime/clock.ts';
import { createInformer } from '../../runtime/informer.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type ProjectLike } from '../../runtime/planes.ts';
import { watches } from '../../runtime/triggers.ts';
import { ProjectPlaneWatch } from './project-plane-watch.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const silent = pino({ level: 'silent' });

function platform(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'milo', server: 'https://milo.example', skipTLSVerify: false }],
    users: [{ name: 'admin', token: 'secret' }],
    contexts: [{ name: 'milo', cluster: 'milo', user: 'admin' }],
    currentContext: 'milo',
  });
  return kubeConfig;
}

function ready(name: string, status: 'True' | 'False'): ProjectLike {
  return { metadata: { name, uid: `uid-${name}` }, status: { conditions: [{ type: 'Ready', status }] } };
}

function setup() {
  const clock = new FakeClock();
  const projects = new FakeResource<ProjectLike>(PROJECTS);
  const configMaps = new FakeResource(CONFIGMAPS);
  const informer = createInformer<ProjectLike>({
    plane: 'platform',
    client: projects.client(),
    clock,
    log: silent,
  });
  const registry = new PlaneRegistry({
    projects: informer,
    kubeConfigFor: (name) => projectKubeConfig(platform(), name),
    log: silent,
    clock,
    clientFor: () => configMaps.client(),
  });
  const watch = new ProjectPlaneWatch<string, { names: () => string[] }>(registry, (plane) => {
    const maps = plane.informer<KubeObject>(CONFIGMAPS);
    return {
      view: { names: () => maps.store.list().map((m) => m.metadata.name!) },
      informers: [maps],
      triggers: [watches(maps, (event) => [`${plane.project}/${event.object.metadata.name}`])],
      keys: () => [`${plane.project}/*`],
    };
  });
  const keys: string[] = [];
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await clock.advance(0);
      await registry.settled();
    }
  };
  informer.start();
  registry.start();
  return {
    projects,
    configMaps,
    registry,
    watch,
    keys,
    settle,
    subscribe: () => watch.trigger()((key) => keys.push(key)),
  };
}

describe('project-plane watch', () => {
  it('views a plane only once its informers have listed, then wakes its keys', async () => {
    const t = setup();
    const unsubscribe = t.subscribe();
    t.configMaps.put({ metadata: { name: 'a', namespace: 'default' } });
    t.projects.put(ready('alpha', 'True'));
    await t.settle();
    assert.ok(t.watch.engaged('alpha'));
    assert.deepEqual(t.watch.view('alpha')?.names(), ['a']);
    assert.deepEqual(t.watch.projects(), ['alpha']);
    assert.ok(t.keys.includes('alpha/a'), 'the initial list maps to keys');
    assert.ok(t.keys.includes('alpha/*'), 'the plane keys are woken once it has listed');
    unsubscribe();
  });

  it('forgets a disengaged plane and wakes its keys again', async () => {
    const t = setup();
    const unsubscribe = t.subscribe();
    t.projects.put(ready('alpha', 'True'));
    await t.settle();
    t.keys.length = 0;
    t.projects.put(ready('alpha', 'False'));
    await t.settle();
    assert.equal(t.watch.engaged('alpha'), false);
    assert.equal(t.watch.view('alpha'), undefined);
    assert.deepEqual(t.keys, ['alpha/*']);
    unsubscribe();
  });

  it('delivers nothing once the trigger is unsubscribed', async () => {
    const t = setup();
    const unsubscribe = t.subscribe();
    t.projects.put(ready('alpha', 'True'));
    await t.settle();
    unsubscribe();
    t.keys.length = 0;
    t.configMaps.put({ metadata: { name: 'late', namespace: 'default' } });
    t.projects.put(ready('beta', 'True'));
    await t.settle();
    assert.deepEqual(t.keys, []);
    assert.equal(t.watch.view('alpha'), undefined);
  });
});
