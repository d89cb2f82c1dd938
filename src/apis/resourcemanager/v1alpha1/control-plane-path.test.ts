import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROJECT_PLANE_PREFIX, projectControlPlanePath } from './control-plane-path.ts';

describe('project control-plane path', () => {
  it('is the Milo path of the project under the platform', () => {
    assert.equal(
      projectControlPlanePath('alpha'),
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/alpha/control-plane',
    );
    assert.ok(projectControlPlanePath('alpha').startsWith(PROJECT_PLANE_PREFIX));
  });

  it('URI-encodes the project name, so it stays one path segment', () => {
    assert.equal(
      projectControlPlanePath('a/b c'),
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/a%2Fb%20c/control-plane',
    );
  });
});
