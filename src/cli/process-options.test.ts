import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { parseListen, processSettings, withProcessOptions, type ProcessFlags } from './process-options.ts';

function parsed(ports: { metrics: number; health: number }, argv: string[]): ProcessFlags {
  const command = withProcessOptions(new Command('probe').exitOverride(), ports);
  command.parse(argv, { from: 'user' });
  return command.opts<ProcessFlags>();
}

describe('process options', () => {
  it('defaults the endpoints to loopback at the given ports and the log level to info', () => {
    assert.deepEqual(parsed({ metrics: 8090, health: 8091 }, []), {
      metricsAddr: '127.0.0.1:8090',
      healthAddr: '127.0.0.1:8091',
      logLevel: 'info',
    });
  });

  it('takes every flag as given and turns it into settings', () => {
    const flags = parsed({ metrics: 1, health: 2 }, [
      '--metrics-addr',
      '[::1]:9000',
      '--health-addr',
      '0.0.0.0:9001',
      '--identity',
      'me',
      '--log-level',
      'silent',
    ]);
    const settings = processSettings(flags, 'probe');
    assert.deepEqual(settings.metricsAddr, { host: '::1', port: 9000 });
    assert.deepEqual(settings.healthAddr, { host: '0.0.0.0', port: 9001 });
    assert.equal(settings.identity, 'me');
    assert.equal(settings.log.level, 'silent');
  });

  it('refuses a log level it does not know', () => {
    assert.throws(
      () => parsed({ metrics: 1, health: 2 }, ['--log-level', 'loud']),
      /Allowed choices are trace/,
    );
  });

  it('names the flag whose address does not parse', () => {
    assert.throws(
      () => processSettings({ metricsAddr: 'nope', healthAddr: '127.0.0.1:1', logLevel: 'info' }, 'probe'),
      /--metrics-addr must be HOST:PORT, got "nope"/,
    );
    assert.throws(() => parseListen('127.0.0.1:70000'), /--listen port must be at most 65535/);
  });
});
