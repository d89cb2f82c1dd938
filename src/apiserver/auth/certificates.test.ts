import assert from 'node:assert/strict';
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  CA_COMMON_NAME,
  invalidHost,
  loadOrCreateCertificates,
  PKI_DIR,
  SERVING_RENEW_BEFORE_DAYS,
  SERVING_VALIDITY_DAYS,
  type ServingCertificates,
  unusableCa,
} from './certificates.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

describe('certificates in memory', () => {
  let certs: ServingCertificates;
  let ca: X509Certificate;
  let serving: X509Certificate;
  before(async () => {
    certs = await loadOrCreateCertificates(undefined, ['np.example.test', '10.1.2.3', '[FD00:0::5]']);
    ca = new X509Certificate(certs.caCertPem);
    serving = new X509Certificate(certs.certPem);
  });

  it('makes a self-signed CA named netpresence-ca, valid for ten years', () => {
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, `CN=${CA_COMMON_NAME}`);
    assert.equal(ca.verify(ca.publicKey), true);
    assert.equal(ca.checkPrivateKey(keyOf(certs.caKeyPem)), true);
    assert.ok(Date.parse(ca.validTo) - Date.now() >= 3650 * DAY_MS - 60_000);
  });

  it('signs a serving certificate that verifies against the CA and matches its own key', () => {
    assert.equal(serving.ca, false);
    assert.equal(serving.checkIssued(ca), true);
    assert.equal(serving.verify(ca.publicKey), true);
    assert.equal(serving.checkPrivateKey(keyOf(certs.keyPem)), true);
    assert.deepEqual(serving.keyUsage, [SERVER_AUTH]);
    assert.ok(Date.parse(serving.validTo) - Date.now() >= 365 * DAY_MS);
    assert.ok(Date.parse(serving.validFrom) <= Date.now());
  });

  it('names the loopback addresses, localhost and every extra host in the serving certificate', () => {
    assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(serving.checkIP('::1'), '::1');
    assert.equal(serving.checkHost('localhost'), 'localhost');
    assert.equal(serving.checkHost('np.example.test'), 'np.example.test');
    assert.equal(serving.checkIP('10.1.2.3'), '10.1.2.3');
    assert.equal(serving.checkIP('fd00::5'), 'fd00::5');
    assert.equal(serving.checkHost('other.example.test'), undefined);
  });

  it('refuses a host that is neither an IP address nor a DNS name, saying what to pass', async () => {
    await assert.rejects(loadOrCreateCertificates(undefined, ['https://np.example.test:6443']), {
      message: invalidHost('https://np.example.test:6443'),
    });
  });
});

describe('certificates in a data directory', () => {
  let root: string;
  let seeded: string;
  let first: ServingCertificates;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'np-certificates-'));
    seeded = join(root, 'seeded');
    first = await loadOrCreateCertificates(seeded, ['np.example.test']);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A copy of the seeded data directory, so each case starts from the same first start. */
  async function copyOfSeeded(): Promise<string> {
    const dataDir = await mkdtemp(join(root, 'case-'));
    await cp(seeded, dataDir, { recursive: true });
    return dataDir;
  }

  it('keeps the CA and the serving pair in pki/, keys readable by the owner only', async () => {
    const pki = join(seeded, PKI_DIR);
    assert.equal(await readFile(join(pki, 'ca.crt'), 'utf8'), first.caCertPem);
    assert.equal(await readFile(join(pki, 'ca.key'), 'utf8'), first.caKeyPem);
    assert.equal(await readFile(join(pki, 'server.crt'), 'utf8'), first.certPem);
    assert.equal(await readFile(join(pki, 'server.key'), 'utf8'), first.keyPem);
    assert.equal((await stat(join(pki, 'ca.key'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(pki, 'server.key'))).mode & 0o777, 0o600);
  });

  it('returns the same CA and serving certificate on the next start', async () => {
    const dataDir = await copyOfSeeded();
    assert.deepEqual(await loadOrCreateCertificates(dataDir, ['NP.example.test.']), first);
    assert.deepEqual(await loadOrCreateCertificates(dataDir), first);
  });

  it('re-issues the serving certificate from the same CA when a host is missing, keeping earlier hosts', async () => {
    const dataDir = await copyOfSeeded();
    const next = await loadOrCreateCertificates(dataDir, ['203.0.113.7']);
    assert.equal(next.caCertPem, first.caCertPem);
    assert.equal(next.caKeyPem, first.caKeyPem);
    assert.notEqual(next.certPem, first.certPem);
    const serving = new X509Certificate(next.certPem);
    assert.equal(serving.verify(new X509Certificate(first.caCertPem).publicKey), true);
    assert.equal(serving.checkIP('203.0.113.7'), '203.0.113.7');
    assert.equal(serving.checkHost('np.example.test'), 'np.example.test');
    assert.equal(serving.checkIP('::1'), '::1');
    assert.equal(await readFile(join(dataDir, PKI_DIR, 'server.crt'), 'utf8'), next.certPem);
    assert.deepEqual(await loadOrCreateCertificates(dataDir, ['203.0.113.7']), next);
  });

  it('re-issues a serving certificate close to expiry from the same CA, keeping its hosts', async () => {
    const dataDir = await copyOfSeeded();
    const later = Date.now() + (SERVING_VALIDITY_DAYS - SERVING_RENEW_BEFORE_DAYS + 1) * DAY_MS;
    const next = await loadOrCreateCertificates(dataDir, [], () => later);
    assert.equal(next.caCertPem, first.caCertPem);
    const serving = new X509Certificate(next.certPem);
    assert.equal(serving.verify(new X509Certificate(first.caCertPem).publicKey), true);
    assert.ok(Date.parse(serving.validTo) - later >= 365 * DAY_MS);
    assert.equal(serving.checkHost('np.example.test'), 'np.example.test');
  });

  it('re-issues a serving certificate that does not match its key, keeping its hosts', async () => {
    const dataDir = await copyOfSeeded();
    await writeFile(join(dataDir, PKI_DIR, 'server.key'), first.caKeyPem);
    const next = await loadOrCreateCertificates(dataDir);
    assert.equal(next.caCertPem, first.caCertPem);
    const serving = new X509Certificate(next.certPem);
    assert.equal(serving.checkPrivateKey(keyOf(next.keyPem)), true);
    assert.equal(serving.checkHost('np.example.test'), 'np.example.test');
  });

  it('refuses to start on a CA key that does not belong to the CA, naming the file and the way out', async () => {
    const dataDir = await copyOfSeeded();
    const pki = join(dataDir, PKI_DIR);
    await writeFile(join(pki, 'ca.key'), first.keyPem);
    await assert.rejects(loadOrCreateCertificates(dataDir), {
      message: unusableCa(join(pki, 'ca.key'), `does not belong to ${join(pki, 'ca.crt')}`, pki),
    });
    assert.equal(await readFile(join(pki, 'ca.crt'), 'utf8'), first.caCertPem);
  });

  it('refuses to start on an unreadable CA certificate', async () => {
    const dataDir = await copyOfSeeded();
    const pki = join(dataDir, PKI_DIR);
    await writeFile(join(pki, 'ca.crt'), 'not a certificate');
    await assert.rejects(loadOrCreateCertificates(dataDir), {
      message: unusableCa(join(pki, 'ca.crt'), 'is not a PEM certificate', pki),
    });
  });
});

function keyOf(pem: string): KeyObject {
  return createPrivateKey(pem);
}
