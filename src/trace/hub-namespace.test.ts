import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakePlaneReader } from '../../test/support/fake-plane-reader.ts';
import { hubNamespaceMessages, resolveHubNamespace } from './hub-namespace.ts';
import { Kinds } from './reader.ts';

describe('resolveHubNamespace', () => {
  const reader = new FakePlaneReader()
    .put('platform', Kinds.project, { metadata: { name: 'alpha' } })
    .put('platform', Kinds.project, { metadata: { name: 'gamma' } })
    .addPlane('project-gamma')
    .put('project-alpha', Kinds.namespace, { metadata: { name: 'default', uid: 'u-default' } })
    .put('project-alpha', Kinds.namespace, { metadata: { name: 'web', uid: 'u-web' } });

  it('names ns-<uid> of the project namespace, default unless given', async () => {
    assert.equal(
      await resolveHubNamespace(reader, { project: 'alpha', namespace: 'default' }),
      'ns-u-default',
    );
    assert.equal(await resolveHubNamespace(reader, { project: 'alpha', namespace: 'web' }), 'ns-u-web');
  });

  it('a missing namespace is an error naming the project and the namespace', async () => {
    await assert.rejects(resolveHubNamespace(reader, { project: 'alpha', namespace: 'api' }), {
      message: hubNamespaceMessages.namespaceMissing('alpha', 'api'),
    });
  });

  it('a project the platform does not hold is named as missing', async () => {
    const empty = new FakePlaneReader().addPlane('platform').addPlane('project-delta');
    await assert.rejects(resolveHubNamespace(empty, { project: 'delta', namespace: 'default' }), {
      message: hubNamespaceMessages.projectMissing('delta'),
    });
  });

  it('an unreadable project plane is an error naming the project', async () => {
    await assert.rejects(
      resolveHubNamespace(reader, { project: 'beta', namespace: 'default' }),
      (err: Error) => err.message.startsWith(`project "beta"'s control plane cannot be read`),
    );
  });
});
