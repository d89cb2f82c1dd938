import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controllerLogger, rootLogger } from './logging.ts';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const log = rootLogger({ level, destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { lines, log };
}

describe('logging', () => {
  it('writes controller, plane and key as fields of every line of a reconcile logger', () => {
    const { lines, log } = capture();
    const reconcileLog = controllerLogger(log, {
      controller: 'presence',
      plane: 'project-a',
      key: 'ns/net/loc',
    });
    reconcileLog.info('context created');
    reconcileLog.error({ err: new Error('boom') }, 'write refused');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.equal(line.controller, 'presence');
      assert.equal(line.plane, 'project-a');
      assert.equal(line.key, 'ns/net/loc');
    }
    assert.equal(lines[0].msg, 'context created');
  });

  it('omits plane and key when they are not given, rather than writing them empty', () => {
    const { lines, log } = capture();
    controllerLogger(log, { controller: 'presence' }).info('starting workers');
    assert.equal(lines[0].controller, 'presence');
    assert.equal('plane' in lines[0], false);
    assert.equal('key' in lines[0], false);
  });

  it('writes nothing below the chosen level, and names the process when asked', () => {
    const lines: Record<string, unknown>[] = [];
    const log = rootLogger({
      level: 'info',
      name: 'hub-controller-manager',
      destination: { write: (line: string) => lines.push(JSON.parse(line)) },
    });
    log.debug('hidden');
    log.info('shown');
    assert.deepEqual(
      lines.map((line) => [line.msg, line.name]),
      [['shown', 'hub-controller-manager']],
    );
  });
});
