/**
 * `npm run crds`: writes config/crd/<group>_<plural>.yaml for every kind and removes any other
 * YAML file there, so the directory holds exactly the generator's output.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRD_DIRECTORY, renderCrdFiles } from './crd-files.ts';

const files = renderCrdFiles();
await mkdir(CRD_DIRECTORY, { recursive: true });
for (const stale of await readdir(CRD_DIRECTORY)) {
  if (stale.endsWith('.yaml') && !files.has(stale)) await rm(join(CRD_DIRECTORY, stale));
}
for (const [name, content] of files) await writeFile(join(CRD_DIRECTORY, name), content);
console.log(`wrote ${files.size} CRDs to ${CRD_DIRECTORY}`);
