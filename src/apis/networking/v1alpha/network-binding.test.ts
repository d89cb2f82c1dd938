import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkBindingMessages } from './network-binding.ts';

describe('network binding messages', () => {
  it('name both pairs when two derive the same context name', () => {
    assert.equal(
      networkBindingMessages.nameConflict(
        'a-b-c',
        'default',
        'project-alpha',
        { network: 'a-b', location: 'c' },
        { network: 'a', location: 'b-c' },
      ),
      'Network context "a-b-c" in namespace "default" of project "project-alpha" already serves network "a-b" in location "c"; network "a" in location "b-c" derives the same name',
    );
  });

  it('tell a misdirected binding which namespace it may use', () => {
    assert.equal(
      networkBindingMessages.misdirected('vpc', 'other', 'project-alpha', 'default'),
      'Network "vpc" was not found in namespace "other" of project "project-alpha": bindings in this namespace can only use networks in namespace "default"',
    );
  });
});
