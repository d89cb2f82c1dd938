import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { serverMessages } from '../dashboard/server.ts';
import { collectUrl, parseListen } from './dashboard.ts';

const BIN = new URL('../../bin/netpresence.js', import.meta.url).pathname;

describe('netpresence dashboard flags', () => {
  it('reads --listen as HOST:PORT, IPv6 in brackets, and names the flag when it is not', () => {
    assert.deepEqual(parseListen('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
    assert.throws(() => parseListen('8080'), /--listen must be HOST:PORT/);
    assert.throws(() => parseListen('h:99999', '--dashboard'), /--dashboard must be HOST:PORT/);
  });

  it('collects repeated --metrics-url values and names the flag for one that is not an http(s) URL', () => {
    assert.deepEqual(collectUrl('http://127.0.0.1:9/metrics', ['https://m/metrics']), [
      'https://m/metrics',
      'http://127.0.0.1:9/metrics',
    ]);
    assert.throws(
      () => collectUrl('127.0.0.1:9', []),
      /--metrics-url must be an http\(s\) URL, got "127.0.0.1:9"/,
    );
    assert.throws(() => collectUrl('file:///etc/passwd', []), /--metrics-url must be an http\(s\) URL/);
  });

  it('refuses to listen off loopback without --token-file, exiting 2 with what to do', () => {
    const run = spawnSync(
      process.execPath,
      [BIN, 'dashboard', '--listen', '0.0.0.0:0', '--kubeconfig', '/nonexistent'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(run.status, 2, run.stderr);
    assert.ok(run.stderr.includes(serverMessages.tokenRequired('0.0.0.0')), run.stderr);
  });
});
