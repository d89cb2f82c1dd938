import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CRD_DIRECTORY } from './crd-files.ts';
import { PLANE_CRDS, renderPlaneBases } from './crd-kustomize.ts';

describe('CRD bases per plane', () => {
  it('match the checked-in config/crd/<plane> folders (run `npm run crds` after changing src/apis)', async () => {
    const expected = renderPlaneBases();
    const present: string[] = [];
    for (const plane of Object.keys(PLANE_CRDS)) {
      for (const name of await readdir(join(CRD_DIRECTORY, plane))) present.push(`${plane}/${name}`);
    }
    assert.deepEqual(
      present.sort(),
      [...expected.keys()].sort(),
      'config/crd/<plane> is out of date: run `npm run crds`',
    );
    for (const [path, content] of expected) {
      assert.equal(
        await readFile(join(CRD_DIRECTORY, path), 'utf8'),
        content,
        `config/crd/${path} differs: run \`npm run crds\``,
      );
    }
  });

  it('put each kind on the planes apis.md §0.1 names', () => {
    const planesOf = (plural: string): string[] =>
      Object.entries(PLANE_CRDS)
        .filter(([, crds]) => crds.some((crd) => crd.spec.names.plural === plural))
        .map(([plane]) => plane);
    assert.deepEqual(planesOf('projects'), ['platform']);
    assert.deepEqual(planesOf('networks'), ['project']);
    assert.deepEqual(planesOf('networkcontexts'), ['project', 'hub', 'cell']);
    assert.deepEqual(planesOf('networkbindings'), ['hub']);
    assert.deepEqual(planesOf('networkinterfaceclaims'), ['cell']);
    assert.deepEqual(planesOf('ipclaims'), ['project']);
    assert.deepEqual(planesOf('works'), ['propagation']);
  });
});
