/**
 * The plane registry against the embedded API server: a Project on the root plane going Ready
 * engages its project plane (served at the Milo path) and starts its reflectors; going un-Ready
 * or being deleted disengages it and closes every watch it opened.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { resourceClient } from '../client/resource-client.ts';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { eventually, startTestServer } from '../../test/support/apiserver.ts';
import { createInformer } from './informer.ts';
import { PlaneRegistry, PROJECTS, projectKubeConfig, type EngagedPlane, type ProjectLike } from './planes.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const CRDS: ResourceId = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const WAIT_MS = 20_000;
const silent = pino({ level: 'silent' });

const projectCrd: KubeObject = {
  metadata: { name: 'projects.resourcemanager.miloapis.com' },
  spec: {
    group: 'resourcemanager.miloapis.com',
    names: { plural: 'projects', singular: 'project', kind: 'Project', listKind: 'ProjectList' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

const readiness = (status: 'True' | 'False') => ({ status: { conditions: [{ type: 'Ready', status }] } });

describe('plane registry against the embedded API server', () => {
  it('starts and stops a project plane reflectors as its Project becomes Ready, un-Ready and deleted, leaking no watch', async () => {
    const t = await startTestServer();
    const platform = t.kubeConfig('root');
    await resourceClient(platform, CRDS).create(projectCrd);
    const projects = resourceClient<ProjectLike>(platform, PROJECTS);
    await eventually(
      () =>
        projects
          .list()
          .then(() => true)
          .catch(() => undefined),
      WAIT_MS,
      'projects to be served',
    );
    const projectPlane = t.server.addProjectPlane('p1');
    await resourceClient(projectKubeConfig(platform, 'p1'), CONFIGMAPS).create({
      metadata: { name: 'hello', namespace: 'default' },
    });

    const projectInformer = createInformer({ plane: 'platform', client: projects, log: silent });
    const timeline: string[] = [];
    const registry = new PlaneRegistry({
      projects: projectInformer,
      kubeConfigFor: (project) => projectKubeConfig(platform, project),
      log: silent,
      async onEngage(plane: EngagedPlane) {
        timeline.push(`engaged ${plane.name}`);
        await plane.informer(CONFIGMAPS).synced();
      },
      onDisengage(plane: EngagedPlane) {
        timeline.push(`disengaged ${plane.name}`);
      },
    });
    // The plane's own CRD catalog listens to its log too: count the watches beyond it.
    const idle = projectPlane.log.watcherCount();
    const watchers = () => projectPlane.log.watcherCount() - idle;
    const engaged = () => registry.get('p1');
    try {
      projectInformer.start();
      registry.start();
      await projects.create({ metadata: { name: 'p1' } });
      await projects.patchMerge('p1', undefined, readiness('False'), { subresource: 'status' });
      await projectInformer.synced();

      await projects.patchMerge('p1', undefined, readiness('True'), { subresource: 'status' });
      assert.equal(watchers(), 0);
      const plane = await eventually(engaged, WAIT_MS, 'p1 to be engaged');
      await registry.settled();
      assert.deepEqual(
        plane
          .informer(CONFIGMAPS)
          .store.list()
          .map((o) => o.metadata.name),
        ['hello'],
      );
      await eventually(
        () => (watchers() === 1 ? true : undefined),
        WAIT_MS,
        'one watch on the project plane',
      );

      await projects.patchMerge('p1', undefined, readiness('False'), { subresource: 'status' });
      await eventually(() => (engaged() ? undefined : true), WAIT_MS, 'p1 to be disengaged');
      await registry.settled();
      assert.equal(plane.signal.aborted, true);
      await eventually(
        () => (watchers() === 0 ? true : undefined),
        WAIT_MS,
        'no watch left on the project plane',
      );

      await projects.patchMerge('p1', undefined, readiness('True'), { subresource: 'status' });
      await eventually(engaged, WAIT_MS, 'p1 to be engaged again');
      await eventually(
        () => (watchers() === 1 ? true : undefined),
        WAIT_MS,
        'one watch on the project plane',
      );
      await projects.delete('p1');
      await eventually(
        () => (engaged() ? undefined : true),
        WAIT_MS,
        'p1 to be disengaged after its deletion',
      );
      await registry.settled();
      await eventually(
        () => (watchers() === 0 ? true : undefined),
        WAIT_MS,
        'no watch left on the project plane',
      );

      assert.deepEqual(timeline, [
        'engaged project-p1',
        'disengaged project-p1',
        'engaged project-p1',
        'disengaged project-p1',
      ]);
    } finally {
      await registry.stop();
      await projectInformer.stop();
      await t.stop();
    }
  });
});
