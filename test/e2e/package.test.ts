/**
 * The package as a user installs it: `npm pack` on a copy of the checkout (its prepack script
 * builds dist/), installed into an empty folder with production dependencies only, then every
 * subcommand run from that folder — `--help` for each, and `apiserver` and `up` serving until
 * SIGTERM, with kubectl reaching them. Nothing from the checkout's dev dependencies (tsx,
 * typescript) is there to fall back on.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kubectl } from '../support/kubectl.ts';
import {
  INSTALL_ARGS,
  INSTALL_FOLDER_PACKAGE,
  PACKED_SOURCES,
  SUBCOMMANDS,
  TEST_INSTALL_EXTRA,
  packArgs,
} from '../support/package-commands.ts';

const CHECKOUT = resolve(import.meta.dirname, '../..');
const NPM_TIMEOUT_MS = 8 * 60_000;

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: NPM_TIMEOUT_MS });
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(' ')} in ${cwd} failed:\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

/** Starts `netpresence args…` from the install and resolves with it once stdout shows `ready`. */
function startUntil(bin: string, args: string[], cwd: string, ready: string, timeoutMs = 120_000) {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const started = new Promise<ChildProcess>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${args[0]} printed no "${ready}" in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes(ready)) {
        clearTimeout(timer);
        done(child);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`${args[0]} exited with ${code} before "${ready}": ${stderr}`));
    });
  });
  return { started, exited, output: () => stdout };
}

describe('the npm package, installed with production dependencies only', () => {
  const root = mkdtempSync(join(tmpdir(), 'netpresence-package-'));
  const install = join(root, 'install');
  let bin = '';

  before(() => {
    const copy = join(root, 'checkout');
    for (const path of PACKED_SOURCES) cpSync(join(CHECKOUT, path), join(copy, path), { recursive: true });
    symlinkSync(realpathSync(join(CHECKOUT, 'node_modules')), join(copy, 'node_modules'));
    run('npm', packArgs(root), copy);
    const tarball = readdirSync(root).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, `npm pack wrote no tarball into ${root}`);

    mkdirSync(install);
    writeFileSync(join(install, 'package.json'), JSON.stringify(INSTALL_FOLDER_PACKAGE));
    run('npm', [...INSTALL_ARGS, ...TEST_INSTALL_EXTRA, join(root, tarball)], install);
    // The native SQLite module the skipped install script would have compiled: the checkout's.
    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    mkdirSync(join(install, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    cpSync(realpathSync(join(CHECKOUT, addon)), join(install, addon));
    bin = join(install, 'node_modules/netpresence/bin/netpresence.js');
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it('holds dist/ with source maps and no sources, and no dev dependency', () => {
    const pkg = join(install, 'node_modules/netpresence');
    assert.ok(existsSync(join(pkg, 'dist/cli/main.js')));
    assert.ok(existsSync(join(pkg, 'dist/cli/main.js.map')));
    assert.ok(!existsSync(join(pkg, 'src')), 'the package ships src/');
    assert.ok(!existsSync(join(pkg, 'dist/cli/process-options.test.js')), 'the package ships tests');
    for (const dev of ['tsx', 'typescript', 'eslint', 'fast-check']) {
      assert.ok(!existsSync(join(install, 'node_modules', dev)), `${dev} was installed`);
    }
    assert.ok(existsSync(join(install, 'node_modules/.bin/netpresence')));
  });

  it('answers --help for every subcommand', () => {
    for (const command of SUBCOMMANDS) {
      const out = run(process.execPath, [bin, command, '--help'], install);
      assert.match(out, new RegExp(`^Usage: netpresence ${command} `), `netpresence ${command} --help`);
    }
  });

  it('serves the API server (with SQLite storage) until SIGTERM', async () => {
    const kubeconfig = join(root, 'apiserver.kubeconfig');
    const server = startUntil(
      bin,
      [
        'apiserver',
        '--listen',
        '127.0.0.1:0',
        '--plane',
        'p1',
        '--data-dir',
        join(root, 'data'),
        '--kubeconfig',
        kubeconfig,
      ],
      install,
      'listening on',
    );
    const child = await server.started;
    try {
      const kubectl = new Kubectl(kubeconfig, join(root, 'kubectl-cache'), root);
      const result = await kubectl.run(['create', 'namespace', 'from-package']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        (await kubectl.run(['get', 'namespace', 'from-package', '-o', 'name'])).stdout.trim(),
        'namespace/from-package',
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await server.exited, 0);
  });

  it('brings up the embedded fleet until SIGTERM', async () => {
    const kubeconfig = join(root, 'up.kubeconfig');
    const fleet = startUntil(
      bin,
      ['up', '--port', '0', '--kubeconfig', kubeconfig],
      install,
      'netpresence fleet is up at ',
    );
    const child = await fleet.started;
    try {
      const kubectl = new Kubectl(kubeconfig, join(root, 'kubectl-cache-up'), root);
      const result = await kubectl.run(['--context', 'hub', 'get', 'clusters', '-o', 'name']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /cluster\.cluster\.karmada\.io\//);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await fleet.exited, 0);
  });
});
