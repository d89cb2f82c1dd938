import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBindingRef, parseClaimRef, parseProjectNamespaceRef, refMessages } from './refs.ts';

describe('references', () => {
  it('a binding is <hub-namespace>/<name>', () => {
    assert.deepEqual(parseBindingRef('ns-1/web'), { namespace: 'ns-1', name: 'web' });
    for (const bad of ['web', 'ns-1/', '/web', 'a/b/c'])
      assert.throws(() => parseBindingRef(bad), { message: refMessages.binding(bad) });
  });

  it('a claim is <cell>/<namespace>/<name>', () => {
    assert.deepEqual(parseClaimRef('cell-a/ns-1/web-0'), {
      cell: 'cell-a',
      namespace: 'ns-1',
      name: 'web-0',
    });
    for (const bad of ['ns-1/web-0', 'cell-a//web-0', 'a/b/c/d'])
      assert.throws(() => parseClaimRef(bad), { message: refMessages.claim(bad) });
  });

  it('a project namespace defaults to default', () => {
    assert.deepEqual(parseProjectNamespaceRef('project-alpha'), {
      project: 'project-alpha',
      namespace: 'default',
    });
    assert.deepEqual(parseProjectNamespaceRef('project-alpha/web'), {
      project: 'project-alpha',
      namespace: 'web',
    });
    for (const bad of ['', 'p/', 'p/n/x'])
      assert.throws(() => parseProjectNamespaceRef(bad), { message: refMessages.projectNamespace(bad) });
  });
});
