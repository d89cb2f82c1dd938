/**
 * Signed tokens: JWT-shaped bearer tokens (`header.payload.signature`, each base64url) signed
 * with HMAC-SHA256 under a key the server keeps, so a token carries what checks it and outlives
 * the process that minted it — as Kubernetes' ServiceAccount tokens outlive a kube-apiserver
 * restart.
 *
 * Guarantees: the key is 32 random bytes, generated on the first start and kept in
 * `<dataDir>/serviceaccount.key` (mode 0600, written atomically), so a server restarted on the
 * same data directory verifies what it signed before; without a data directory the key lives in
 * memory only. `verify` answers the payload only for a token whose header is `HS256`/`JWT` and
 * whose signature is this key's over exactly its first two parts (constant-time comparison);
 * a token signed under another key, or altered in any byte, gets undefined. The key is never
 * logged. What the payload's claims mean (expiry, subject, audience) is the caller's to check.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainObject } from '../objects.ts';
import { writeFileAtomic } from './atomic-file.ts';

export const SIGNING_KEY_FILE = 'serviceaccount.key';
const KEY_BYTES = 32;
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export class SignedTokens {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length < KEY_BYTES) throw new Error(`a signing key must be at least ${KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  /** The key of `dataDir` (created on first use), or a new in-memory key without one. */
  static async load(dataDir: string | undefined): Promise<SignedTokens> {
    if (!dataDir) return new SignedTokens(randomBytes(KEY_BYTES));
    const file = join(dataDir, SIGNING_KEY_FILE);
    const stored = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (stored !== undefined) {
      const key = Buffer.from(stored.trim(), 'base64url');
      if (key.length < KEY_BYTES) throw new Error(`${file}: not a signing key (under ${KEY_BYTES} bytes)`);
      return new SignedTokens(key);
    }
    const key = randomBytes(KEY_BYTES);
    await writeFileAtomic(file, `${key.toString('base64url')}\n`, 0o600);
    return new SignedTokens(key);
  }

  sign(payload: Record<string, unknown>): string {
    const body = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${body}.${this.#mac(body).toString('base64url')}`;
  }

  /** The payload of a token this key signed; undefined for anything else. */
  verify(token: string): Record<string, unknown> | undefined {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
    const signature = Buffer.from(parts[2], 'base64url');
    const expected = this.#mac(`${parts[0]}.${parts[1]}`);
    // base64url decoding ignores stray characters: the signature must also read back exactly.
    if (signature.length !== expected.length || signature.toString('base64url') !== parts[2])
      return undefined;
    if (!timingSafeEqual(signature, expected)) return undefined;
    try {
      const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
      return isPlainObject(payload) ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#key).update(body, 'utf8').digest();
  }
}
