/**
 * The Dockerfile, checked without a container engine: its bases, the files it copies, that it
 * packs and installs the package with the commands the package test runs, and that the image
 * runs as a user other than root.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { INSTALL_ARGS, INSTALL_FOLDER_PACKAGE, PACKED_SOURCES } from '../support/package-commands.ts';

const CHECKOUT = resolve(import.meta.dirname, '../..');

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped, per stage. */
function stages(text: string): Instruction[][] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const result: Instruction[][] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const instruction = { keyword: match[1], args: match[2].replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') result.push([]);
    result.at(-1)!.push(instruction);
  }
  return result;
}

const dockerfile = stages(readFileSync(join(CHECKOUT, 'Dockerfile'), 'utf8'));
const all = dockerfile.flat();
const final = dockerfile.at(-1)!;

describe('Dockerfile', () => {
  it('builds in stages, each on Node 20 slim', () => {
    assert.ok(dockerfile.length >= 2, 'a multi-stage build');
    for (const stage of dockerfile) assert.match(stage[0].args, /^node:20-slim(\s|$)/);
  });

  it('copies only files that exist, and every file the package build reads', () => {
    const copied: string[] = [];
    for (const { keyword, args } of all) {
      if (keyword !== 'COPY' || args.startsWith('--from')) continue;
      const paths = args.split(' ');
      for (const source of paths.slice(0, -1)) {
        assert.ok(existsSync(join(CHECKOUT, source)), `COPY ${source}: no such file in the checkout`);
        copied.push(source);
      }
    }
    for (const source of PACKED_SOURCES)
      assert.ok(copied.includes(source), `the image build does not copy ${source}`);
  });

  it('packs and installs the package with the package test’s commands', () => {
    const runs = all.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    assert.ok(
      runs.some((r) => r.includes('npm pack --pack-destination ')),
      'npm pack',
    );
    const install = `npm ${INSTALL_ARGS.join(' ')} `;
    assert.ok(
      runs.some((r) => r.includes(install)),
      `a RUN with "${install}"`,
    );
    assert.ok(
      runs.some((r) => r.includes(`echo '${JSON.stringify(INSTALL_FOLDER_PACKAGE)}' > package.json`)),
      'the install folder gets the package test’s package.json',
    );
    for (const stage of dockerfile.slice(1)) {
      for (const { keyword, args } of stage) {
        if (keyword === 'RUN')
          assert.doesNotMatch(
            args,
            /npm (ci|install)(?!.*--omit=dev)/,
            'dev dependencies after the build stage',
          );
      }
    }
  });

  it('runs netpresence as a user other than root, with nothing but the installed package', () => {
    const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
    assert.ok(user, 'the final stage names a USER');
    const [name] = user.split(':');
    assert.ok(name !== 'root' && name !== '0', `USER ${user} is root`);
    assert.ok(!final.some((i) => i.keyword === 'RUN'), 'the final stage runs nothing');
    assert.deepEqual(
      final.filter((i) => i.keyword === 'ENTRYPOINT').map((i) => JSON.parse(i.args)),
      [['netpresence']],
    );
  });
});
