import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CRD_DIRECTORY, renderCrdFiles } from './crd-files.ts';
import {
  allCrds,
  allKinds,
  cellKinds,
  hubKinds,
  platformKinds,
  projectKinds,
  propagationKinds,
} from './crds.ts';

const FORBIDDEN = ['const', 'patternProperties', '$id', '$schema', '$ref', 'anyOf', 'oneOf', 'allOf', 'not'];

/** Every schema node under `node`, with its path. */
function* nodes(node: Record<string, unknown>, path: string): Generator<[string, Record<string, unknown>]> {
  yield [path, node];
  for (const [name, property] of Object.entries(
    (node.properties ?? {}) as Record<string, Record<string, unknown>>,
  )) {
    yield* nodes(property, `${path}.${name}`);
  }
  if (typeof node.additionalProperties === 'object') {
    yield* nodes(node.additionalProperties as Record<string, unknown>, `${path}[*]`);
  }
  if (node.items) yield* nodes(node.items as Record<string, unknown>, `${path}[]`);
}

describe('CRDs', () => {
  it('match the checked-in config/crd files (run `npm run crds` after changing src/apis)', async () => {
    const expected = renderCrdFiles();
    const present = (await readdir(CRD_DIRECTORY)).filter((name) => name.endsWith('.yaml')).sort();
    assert.deepEqual(present, [...expected.keys()].sort(), 'config/crd is out of date: run `npm run crds`');
    for (const [name, content] of expected) {
      const checkedIn = await readFile(join(CRD_DIRECTORY, name), 'utf8');
      assert.equal(
        checkedIn,
        content,
        `config/crd/${name} differs from the generator's output: run \`npm run crds\``,
      );
    }
  });

  it('are structural: a type on every node but int-or-string ones, no forbidden keyword anywhere', () => {
    for (const crd of allCrds) {
      const root = crd.spec.versions[0].schema.openAPIV3Schema;
      for (const [path, node] of nodes(root, crd.metadata.name)) {
        for (const keyword of FORBIDDEN) assert.equal(node[keyword], undefined, `${path} has ${keyword}`);
        assert.notEqual(node.additionalProperties, false, `${path} has additionalProperties: false`);
        assert.ok(
          node.type !== undefined || node['x-kubernetes-int-or-string'] === true,
          `${path} has no type`,
        );
        assert.ok(
          !(node.properties && node.additionalProperties),
          `${path} has properties and additionalProperties`,
        );
      }
      assert.deepEqual(Object.getOwnPropertySymbols(root), []);
    }
  });

  it('leave metadata undescribed and declare apiVersion and kind', () => {
    for (const crd of allCrds) {
      const properties = crd.spec.versions[0].schema.openAPIV3Schema.properties as Record<string, unknown>;
      assert.deepEqual(properties.metadata, { type: 'object' }, crd.metadata.name);
      assert.deepEqual(properties.apiVersion, { type: 'string' }, crd.metadata.name);
      assert.deepEqual(properties.kind, { type: 'string' }, crd.metadata.name);
    }
  });

  it('install each kind in the planes apis.md §0.1 names', () => {
    const kinds = (set: { kind: string }[]) => set.map((definition) => definition.kind).sort();
    assert.deepEqual(kinds(platformKinds), ['Location', 'Project', 'ServiceAvailability']);
    assert.deepEqual(kinds(projectKinds), [
      'IPAllocation',
      'IPClaim',
      'IPClass',
      'IPPool',
      'LocationBinding',
      'Network',
      'NetworkContext',
      'NetworkInterface',
      'Subnet',
    ]);
    assert.deepEqual(kinds(hubKinds), [
      'Cluster',
      'ClusterPropagationPolicy',
      'NetworkBinding',
      'NetworkContext',
      'NetworkInterface',
      'PropagationPolicy',
      'ServingLocation',
      'Subnet',
    ]);
    assert.deepEqual(kinds(propagationKinds), ['ClusterResourceBinding', 'ResourceBinding', 'Work']);
    assert.deepEqual(kinds(cellKinds), [
      'NetworkContext',
      'NetworkInterface',
      'NetworkInterfaceClaim',
      'ServingLocation',
      'Subnet',
    ]);
    assert.equal(allKinds.length, 21);
  });

  it('give a status subresource to every kind but ServingLocation, IPClass, IPPool and the policies', () => {
    const without = allCrds
      .filter((crd) => crd.spec.versions[0].subresources === undefined)
      .map((crd) => crd.spec.names.kind)
      .sort();
    assert.deepEqual(without, [
      'ClusterPropagationPolicy',
      'IPClass',
      'IPPool',
      'PropagationPolicy',
      'ServingLocation',
    ]);
  });

  it('give short names to the Karmada policy and binding kinds only', () => {
    const short = Object.fromEntries(
      allCrds
        .filter((crd) => crd.spec.names.shortNames)
        .map((crd) => [crd.spec.names.kind, crd.spec.names.shortNames]),
    );
    assert.deepEqual(short, {
      PropagationPolicy: ['pp'],
      ClusterPropagationPolicy: ['cpp'],
      ResourceBinding: ['rb'],
      ClusterResourceBinding: ['crb'],
    });
  });
});
