/**
 * `npm run crds`: writes config/crd/<group>_<plural>.yaml for every kind and removes any other
 * YAML file there, so the directory holds exactly the generator's output; then the same for each
 * plane's kustomize base, config/crd/<plane>/.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRD_DIRECTORY, renderCrdFiles } from './crd-files.ts';
import { PLANE_CRDS, renderPlaneBases } from './crd-kustomize.ts';

async function writeExactly(directory: string, files: Map<string, string>): Promise<void> {
  await mkdir(directory, { recursive: true });
  for (const stale of await readdir(directory)) {
    if (stale.endsWith('.yaml') && !files.has(stale)) await rm(join(directory, stale));
  }
  for (const [name, content] of files) await writeFile(join(directory, name), content);
}

const files = renderCrdFiles();
await writeExactly(CRD_DIRECTORY, files);
const bases = renderPlaneBases();
for (const plane of Object.keys(PLANE_CRDS)) {
  const prefix = `${plane}/`;
  const planeFiles = new Map(
    [...bases]
      .filter(([path]) => path.startsWith(prefix))
      .map(([path, content]) => [path.slice(prefix.length), content]),
  );
  await writeExactly(join(CRD_DIRECTORY, plane), planeFiles);
}
console.log(
  `wrote ${files.size} CRDs to ${CRD_DIRECTORY} and a base per plane (${Object.keys(PLANE_CRDS).join(', ')})`,
);
