/**
 * Certificates: the CA and the serving certificate the API server presents over TLS
 * (spec/kube-api.md §1: kubectl sends a bearer token only to an https server it trusts).
 *
 * Guarantees: the serving certificate is signed by the CA, names IP 127.0.0.1, IP ::1,
 * DNS localhost and every requested host in its subjectAltName, carries the serverAuth extended
 * key usage, and has at least SERVING_RENEW_BEFORE_DAYS of validity left when returned. With a
 * data directory the CA is generated once and reused on every later start, so a kubeconfig
 * holding its `certificate-authority-data` stays valid; the serving certificate is re-issued from
 * that same CA whenever it is missing, unreadable, not the CA's, lacks a requested host or is close
 * to expiry — keeping every host it already named. Without a data directory everything is new and
 * in memory on each call.
 * Assumes: one process at a time owns `<dataDir>/pki`. Files are replaced atomically, keys with
 * mode 0600; `ca.crt` is written last, so its presence means the CA is complete.
 * Caveats: an unusable CA (unreadable, mismatched key, expired) fails the start with a message
 * naming the file instead of being replaced, because replacing it silently would invalidate every
 * kubeconfig already written. The CA itself is never renewed.
 *
 * Keys come from Node's crypto (native, on the thread pool: the CA's and the serving key are made
 * side by side when both are new); node-forge only builds and signs the X.509.
 */
import { createPrivateKey, generateKeyPair, randomBytes, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP, isIPv6 } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { writeFileAtomic } from './atomic-file.ts';

export interface ServingCertificates {
  caCertPem: string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
}

export const CA_COMMON_NAME = 'netpresence-ca';
export const SERVING_COMMON_NAME = 'netpresence-apiserver';
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '::1', 'localhost'];
export const CA_VALIDITY_DAYS = 3650;
export const SERVING_VALIDITY_DAYS = 730;
export const SERVING_RENEW_BEFORE_DAYS = 30;

export const PKI_DIR = 'pki';
const CA_CERT = 'ca.crt';
const CA_KEY = 'ca.key';
const SERVING_CERT = 'server.crt';
const SERVING_KEY = 'server.key';

const DAY_MS = 24 * 60 * 60 * 1000;
// Backdated so that a client whose clock runs a little behind still accepts a fresh certificate.
const BACKDATE_MS = 60 * 60 * 1000;

export const invalidHost = (host: string): string =>
  `serving host "${host}" is neither an IP address nor a DNS name: pass a bare name or address, without scheme or port`;

export const unusableCa = (file: string, problem: string, pkiDir: string): string =>
  `${file} ${problem}. Every kubeconfig this server wrote trusts that CA, so it is not replaced ` +
  `silently: remove ${pkiDir} to generate a new one, then rewrite the kubeconfigs.`;

const generateRsaKeyPair = promisify(generateKeyPair);

interface KeyedCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * `hosts` are the extra names and addresses clients reach the server by; `now` is the clock that
 * decides whether the stored serving certificate is close to expiry.
 */
export async function loadOrCreateCertificates(
  dataDir?: string,
  hosts: string[] = [],
  now: () => number = Date.now,
): Promise<ServingCertificates> {
  const wanted = servingHosts(hosts);
  if (dataDir === undefined) {
    const [caKeys, servingKeys] = await Promise.all([newKeyPair(), newKeyPair()]);
    const ca = createCa(caKeys, now());
    return bundle(ca, issueServing(ca, servingKeys, wanted, now()));
  }
  const pkiDir = join(dataDir, PKI_DIR);
  const ca = (await loadCa(pkiDir, now())) ?? (await storeCa(pkiDir, createCa(await newKeyPair(), now())));
  const current = await loadServing(pkiDir);
  const stored = current && inspectServing(current, ca, now());
  const servesWanted = stored?.servable === true && wanted.every((host) => stored.hosts.includes(host));
  if (current && servesWanted) return bundle(ca, current);
  const serving = issueServing(ca, await newKeyPair(), union(wanted, stored?.hosts ?? []), now());
  await storeServing(pkiDir, serving);
  return bundle(ca, serving);
}

function bundle(ca: KeyedCertificate, serving: KeyedCertificate): ServingCertificates {
  return { caCertPem: ca.certPem, caKeyPem: ca.keyPem, certPem: serving.certPem, keyPem: serving.keyPem };
}

/** The loopback hosts and the requested ones, canonical and without duplicates. */
function servingHosts(hosts: string[]): string[] {
  return union([...LOOPBACK_HOSTS], hosts.map(canonicalHost));
}

/**
 * One spelling per host, so that hosts can be compared as strings: IPv6 compressed and without
 * brackets, DNS names lower-case and without the trailing dot (Go rejects it in a SAN).
 */
function canonicalHost(host: string): string {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIPv6(bare) && !bare.includes('%')) return new URL(`https://[${bare}]`).hostname.slice(1, -1);
  if (isIP(bare) === 4) return bare;
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (!DNS_NAME.test(name) || name.length > 253) throw new Error(invalidHost(host));
  return name;
}

const DNS_NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function union(first: string[], second: string[]): string[] {
  return [...new Set([...first, ...second])];
}

function createCa(keyPair: KeyPair, now: number): KeyedCertificate {
  const cert = newCertificate(CA_COMMON_NAME, keyPair.publicKeyPem, now, CA_VALIDITY_DAYS);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPair.privateKeyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keyPair.privateKeyPem };
}

function issueServing(
  ca: KeyedCertificate,
  keyPair: KeyPair,
  hosts: string[],
  now: number,
): KeyedCertificate {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = newCertificate(SERVING_COMMON_NAME, keyPair.publicKeyPem, now, SERVING_VALIDITY_DAYS);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hosts.map(altName) },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keyPair.privateKeyPem };
}

const ALT_NAME_DNS = 2;
const ALT_NAME_IP = 7;

/** A subjectAltName entry as node-forge reads and writes it. */
interface AltName {
  type: number;
  value?: string;
  ip?: string;
}

function altName(host: string): AltName {
  return isIP(host) ? { type: ALT_NAME_IP, ip: host } : { type: ALT_NAME_DNS, value: host };
}

interface KeyPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

/** An RSA key pair, made on libuv's thread pool: two of them are made side by side, off the loop. */
async function newKeyPair(): Promise<KeyPair> {
  const { publicKey, privateKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

function newCertificate(
  commonName: string,
  publicKeyPem: string,
  now: number,
  validityDays: number,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + validityDays * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  return cert;
}

/**
 * 128 random bits as a positive, minimally encoded DER INTEGER: Go refuses a negative serial,
 * and forge writes the hex bytes as given, so the first byte is kept in 0x40–0x7f.
 */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

async function loadCa(pkiDir: string, now: number): Promise<KeyedCertificate | undefined> {
  const certFile = join(pkiDir, CA_CERT);
  const keyFile = join(pkiDir, CA_KEY);
  const certPem = await readIfPresent(certFile);
  if (certPem === undefined) return undefined;
  const keyPem = await readIfPresent(keyFile);
  if (keyPem === undefined) throw new Error(unusableCa(keyFile, 'is missing', pkiDir));
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new Error(unusableCa(certFile, 'is not a PEM certificate', pkiDir));
  }
  if (!cert.ca) throw new Error(unusableCa(certFile, 'is not a CA certificate', pkiDir));
  if (Date.parse(cert.validTo) <= now)
    throw new Error(unusableCa(certFile, `expired on ${cert.validTo}`, pkiDir));
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    throw new Error(unusableCa(keyFile, 'is not a PEM private key', pkiDir));
  }
  if (!matches) throw new Error(unusableCa(keyFile, `does not belong to ${certFile}`, pkiDir));
  return { certPem, keyPem };
}

async function storeCa(pkiDir: string, ca: KeyedCertificate): Promise<KeyedCertificate> {
  await writeFileAtomic(join(pkiDir, CA_KEY), ca.keyPem, 0o600);
  await writeFileAtomic(join(pkiDir, CA_CERT), ca.certPem, 0o644);
  return ca;
}

async function loadServing(pkiDir: string): Promise<KeyedCertificate | undefined> {
  const certPem = await readIfPresent(join(pkiDir, SERVING_CERT));
  const keyPem = await readIfPresent(join(pkiDir, SERVING_KEY));
  return certPem === undefined || keyPem === undefined ? undefined : { certPem, keyPem };
}

async function storeServing(pkiDir: string, serving: KeyedCertificate): Promise<void> {
  // Key first: a crash in between leaves a certificate that does not match it, which is re-issued.
  await writeFileAtomic(join(pkiDir, SERVING_KEY), serving.keyPem, 0o600);
  await writeFileAtomic(join(pkiDir, SERVING_CERT), serving.certPem, 0o644);
}

interface StoredServing {
  /** The hosts it names, kept when it is re-issued. */
  hosts: string[];
  /** Matches its key and is not close to expiry, so it can be served as it is. */
  servable: boolean;
}

/** What a stored serving certificate issued by this CA offers; undefined if unreadable or another CA's. */
function inspectServing(
  serving: KeyedCertificate,
  ca: KeyedCertificate,
  now: number,
): StoredServing | undefined {
  try {
    const cert = new X509Certificate(serving.certPem);
    const caCert = new X509Certificate(ca.certPem);
    if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return undefined;
    const fresh = Date.parse(cert.validTo) - now >= SERVING_RENEW_BEFORE_DAYS * DAY_MS;
    return { hosts: namedHosts(serving.certPem), servable: fresh && matchesKey(cert, serving.keyPem) };
  } catch {
    return undefined;
  }
}

function matchesKey(cert: X509Certificate, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

function namedHosts(certPem: string): string[] {
  const extension: { altNames?: AltName[] } | undefined = forge.pki
    .certificateFromPem(certPem)
    .getExtension('subjectAltName');
  return (extension?.altNames ?? []).flatMap((name) => {
    if (name.type === ALT_NAME_IP && name.ip) return [canonicalHost(name.ip)];
    if (name.type === ALT_NAME_DNS && name.value) return [canonicalHost(name.value)];
    return [];
  });
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
