/**
 * The README's quick start, as a new user runs it: `netpresence up` with its default fleet (what
 * `npm start` runs), then the README's kubectl commands exactly as written, in a directory where
 * `.netpresence/kubeconfig` and `examples/` are where the README says — and they print what the
 * README says they print.
 *
 * The one departure: the fleet listens on a free port and writes its kubeconfig into that
 * directory (`--port 0 --kubeconfig …`), so the test never meets another fleet on 6443.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT, startChildFleet, type ChildFleet } from '../support/fleet.ts';
import { requireKubectl } from '../support/kubectl.ts';

/** The fenced blocks of `language` in the README's "Quick start" section, in order. */
function quickStartBlocks(readme: string, language: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Quick start'));
  if (!section) throw new Error('the README has no Quick start section');
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm');
  return [...section.matchAll(fence)].map((match) => match[1]);
}

function runShell(
  script: string,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env: { ...process.env, HOME: cwd, KUBECONFIG: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README quick start', () => {
  let fleet: ChildFleet | undefined;
  after(async () => fleet?.dispose());

  it('the quick-start commands, run as written against the default fleet, print what the README shows', async () => {
    requireKubectl();
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const [install, walkthrough] = quickStartBlocks(readme, 'sh');
    assert.match(install, /^npm start\b/m, 'the first block starts the fleet with npm start');
    const [expected] = quickStartBlocks(readme, 'text');

    fleet = await startChildFleet();
    const workdir = join(fleet.dir, 'user');
    await mkdir(join(workdir, '.netpresence'), { recursive: true });
    await symlink(fleet.kubeconfigPath, join(workdir, '.netpresence', 'kubeconfig'));
    await symlink(join(REPO_ROOT, 'examples'), join(workdir, 'examples'));

    const result = await runShell(walkthrough, workdir);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, expected);
  });
});
