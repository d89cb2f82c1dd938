import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { asAgent, userAgent, USER_AGENT_ENV } from './user-agent.ts';

const PROBE = `
import { asAgent, userAgent } from './src/client/user-agent.ts';
const seen = await asAgent('presence', async () => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return userAgent();
});
console.log(JSON.stringify({ seen, outside: userAgent() ?? null }));
`;

describe('per-controller user agent', () => {
  it('is off unless the process starts with the variable set: asAgent only runs the function', async () => {
    assert.equal(process.env[USER_AGENT_ENV], undefined);
    assert.equal(await asAgent('presence', async () => userAgent()), undefined);
  });

  it('when on, names the controller across awaits inside its scope and nothing outside it', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
      env: { ...process.env, [USER_AGENT_ENV]: '1' },
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    assert.deepEqual(JSON.parse(out), { seen: 'netpresence/presence', outside: null });
  });
});
