/**
 * `fieldValidation` on built-in kinds, through the real HTTP API and kubectl: Strict refuses
 * unknown and duplicate fields 400 in Kubernetes' words and stores nothing; Warn (the default)
 * stores the object without its unknown fields and says so in `Warning: 299` headers; Ignore
 * drops them silently. The same code path as custom resources (schema admission).
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, type PlaneTarget, type RawResponse } from '../support/child-server.ts';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

function warnings(res: RawResponse): string[] {
  const header = res.headers.warning;
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [header]).flatMap((h) => h.split(/,\s*(?=299 )/));
}

describe('fieldValidation on built-in kinds', () => {
  let t: TestServer;
  let target: PlaneTarget;

  before(async () => {
    t = await startTestServer(['hub']);
    target = {
      base: t.server.url('hub'),
      token: t.server.adminToken,
      ca: t.server.certificates.caCertPem,
      agent: new Agent({ keepAlive: true }),
    };
  });
  after(async () => {
    target.agent.destroy();
    await t.stop();
  });

  const revision = () => t.server.plane('hub')!.log.revision;
  const stored = (name: string) =>
    t.server.plane('hub')!.log.get('coordination.k8s.io/leases', `default/${name}`);

  it('refuses an unknown field under Strict 400 BadRequest `strict decoding error: unknown field "spec.foo"` and stores nothing', async () => {
    const before = revision();
    const res = await call(target, 'POST', `${LEASES}?fieldValidation=Strict`, {
      metadata: { name: 'strict' },
      spec: { holderIdentity: 'a', foo: 1 },
    });
    assert.equal(res.status, 400, res.body);
    const status = JSON.parse(res.body) as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest');
    assert.equal(
      status.message,
      'Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.foo"',
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(revision(), before);
    assert.equal(stored('strict'), undefined);
  });

  it('stores the object without the unknown field under Warn, the default, with a Warning: 299 header', async () => {
    for (const query of ['', '?fieldValidation=Warn']) {
      const name = query ? 'warn' : 'default';
      const res = await call(target, 'POST', `${LEASES}${query}`, {
        metadata: { name, annotations: { a: '1' } },
        spec: { holderIdentity: 'a', foo: 1 },
        extra: true,
      });
      assert.equal(res.status, 201, res.body);
      assert.deepEqual(warnings(res), [
        '299 - "unknown field \\"extra\\""',
        '299 - "unknown field \\"spec.foo\\""',
      ]);
      assert.deepEqual(stored(name)!.spec, { holderIdentity: 'a' });
      assert.equal('extra' in stored(name)!, false);
    }
  });

  it('drops the unknown field silently under Ignore', async () => {
    const res = await call(target, 'POST', `${LEASES}?fieldValidation=Ignore`, {
      metadata: { name: 'ignore' },
      spec: { holderIdentity: 'a', foo: 1 },
    });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(warnings(res), []);
    assert.deepEqual(stored('ignore')!.spec, { holderIdentity: 'a' });
  });

  it('judges PUT, merge patch and JSON patch the same way, leaving the object as it was under Strict', async () => {
    const current = stored('warn')!;
    const before = revision();
    const put = await call(target, 'PUT', `${LEASES}/warn?fieldValidation=Strict`, {
      ...current,
      spec: { holderIdentity: 'b', foo: 2 },
    });
    assert.equal(put.status, 400, put.body);
    assert.match(put.body, /strict decoding error: unknown field \\"spec.foo\\"/);
    const merge = await call(
      target,
      'PATCH',
      `${LEASES}/warn?fieldValidation=Strict`,
      '{"spec":{"holderIdentity":"b","holderIdentity":"c","foo":2}}',
      'application/merge-patch+json',
    );
    assert.equal(merge.status, 400, merge.body);
    assert.match(
      (JSON.parse(merge.body) as { message: string }).message,
      /strict decoding error: duplicate field "spec.holderIdentity", unknown field "spec.foo"$/,
    );
    const jsonPatch = await call(
      target,
      'PATCH',
      `${LEASES}/warn?fieldValidation=Strict`,
      '[{"op":"add","path":"/spec/foo","value":2}]',
      'application/json-patch+json',
    );
    assert.equal(jsonPatch.status, 400, jsonPatch.body);
    assert.match(jsonPatch.body, /unknown field \\"spec.foo\\"/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(revision(), before);
    assert.deepEqual(stored('warn'), current);

    const warned = await call(
      target,
      'PATCH',
      `${LEASES}/warn`,
      '{"spec":{"holderIdentity":"b","holderIdentity":"c","foo":2}}',
      'application/merge-patch+json',
    );
    assert.equal(warned.status, 200, warned.body);
    assert.deepEqual(warnings(warned), [
      '299 - "duplicate field \\"spec.holderIdentity\\""',
      '299 - "unknown field \\"spec.foo\\""',
    ]);
    assert.deepEqual(stored('warn')!.spec, { holderIdentity: 'c' });
  });

  it('refuses a field given twice under Strict 400 `duplicate field`, and stores nothing', async () => {
    const before = revision();
    const res = await call(
      target,
      'POST',
      `${LEASES}?fieldValidation=Strict`,
      '{"metadata":{"name":"dup"},"spec":{"holderIdentity":"a","holderIdentity":"b"}}',
    );
    assert.equal(res.status, 400, res.body);
    assert.equal(
      (JSON.parse(res.body) as { message: string }).message,
      'Lease in version "v1" cannot be handled as a Lease: strict decoding error: duplicate field "spec.holderIdentity"',
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(revision(), before);
    assert.equal(stored('dup'), undefined);
  });

  it('stores a field given twice under Ignore as JSON reads it (the last), saying nothing', async () => {
    const res = await call(
      target,
      'POST',
      `${LEASES}?fieldValidation=Ignore`,
      '{"metadata":{"name":"dup-ignored"},"spec":{"holderIdentity":"a","holderIdentity":"b","foo":1}}',
    );
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(warnings(res), []);
    assert.deepEqual(stored('dup-ignored')!.spec, { holderIdentity: 'b' });
  });

  it('answers kubectl: --validate=strict refuses the unknown field, --validate=warn stores without it', async () => {
    const manifest = [
      'apiVersion: coordination.k8s.io/v1',
      'kind: Lease',
      'metadata:',
      '  name: from-kubectl',
      '  namespace: default',
      'spec:',
      '  holderIdentity: a',
      '  foo: 1',
      '',
    ].join('\n');
    const strict = await t.kubectl.run(
      ['--context', 'hub', 'create', '--validate=strict', '-f', '-'],
      manifest,
    );
    assert.notEqual(strict.code, 0, strict.stdout);
    assert.match(strict.stderr, /strict decoding error: unknown field "spec.foo"/);
    assert.equal(stored('from-kubectl'), undefined);
    const warn = await t.kubectl.run(['--context', 'hub', 'create', '--validate=warn', '-f', '-'], manifest);
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "spec.foo"/);
    assert.deepEqual(stored('from-kubectl')!.spec, { holderIdentity: 'a' });
  });
});
