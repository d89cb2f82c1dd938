/**
 * Atomic file: replaces a file's whole content so that a reader — or the next start after a
 * crash — sees either the old content or the new one, never a torn write.
 *
 * Guarantees: missing parent directories are created (mode 0700); the content goes to a temporary
 * file in the same directory, is flushed to disk, gets exactly `mode`, and is renamed over the
 * target, so the target never exists with a wider mode than asked. On failure the temporary file
 * is removed and the target is untouched.
 * Assumes: a POSIX file system, where rename within one directory is atomic.
 * Caveat: the directory entry is not fsynced, so after a power loss the old content may come
 * back — but never a partial one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(path: string, content: string, mode: number): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let file: FileHandle | undefined;
  try {
    file = await open(temp, 'wx', mode);
    // The umask may have narrowed the mode at creation; the caller asked for exactly this one.
    await file.chmod(mode);
    await file.writeFile(content, 'utf8');
    await file.sync();
    await file.close();
    file = undefined;
    await rename(temp, path);
  } catch (err) {
    await file?.close();
    await rm(temp, { force: true });
    throw err;
  }
}
