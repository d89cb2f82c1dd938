#!/usr/bin/env node
// The import graph of src/ (test files excluded), checked two ways as part of `npm run lint`:
// 1. direction: a file in src/<a>/ imports from src/<b>/ only if DESIGN §7 lets <a> stand on <b>
//    (the table below); siblings — controllers and propagation, processes and trace — never
//    import each other. Type-only imports count: they are dependencies too.
// 2. no circle: no file reaches itself through its imports (type-only imports included).
// Exits 1 and names every offending import and every circle; prints one summary line otherwise.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// What each top-level folder of src/ may import, besides itself. Read downwards:
// apis ← client ← runtime ← controllers | propagation ← processes | trace ← dashboard ← fleet ← cli;
// apiserver stands alone; ipam registers into apiserver and is read by what sits above runtime.
const LAYERS = [
  ['apis'],
  ['apiserver'],
  ['client'],
  ['ipam'],
  ['runtime'],
  ['controllers', 'propagation'],
  ['processes', 'trace'],
  ['dashboard'],
  ['fleet'],
  ['cli'],
];
const SPECIAL = {
  apis: [],
  apiserver: [],
  client: ['apis'],
  ipam: ['apis', 'apiserver'],
  runtime: ['apis', 'client'],
};
const ALLOWED = new Map();
const below = [];
for (const layer of LAYERS) {
  for (const folder of layer)
    ALLOWED.set(folder, new Set(SPECIAL[folder] ?? below.filter((f) => f !== 'apiserver')));
  below.push(...layer);
}
// The composers of planes may reach the API server itself.
for (const folder of ['fleet', 'cli']) ALLOWED.get(folder).add('apiserver');
// Single files a folder may import against the table, each with its reason.
const EXCEPTIONS = new Set([
  // The Milo project path is built in one place, which imports nothing; the server serves it.
  'src/apiserver/server.ts -> src/apis/resourcemanager/v1alpha1/control-plane-path.ts',
  // One ObjectMeta (types only, importing nothing of the rest): the server stores what clients read.
  'src/apiserver/objects.ts -> src/apis/common/meta.ts',
  // One string table per thread (importing nothing): the objects the server stores and those its
  // in-process clients decode share each repeated value.
  'src/apiserver/storage/revision-log.ts -> src/apis/common/interned-strings.ts',
  // RBAC keeps one copy of each request key its remembered decisions are filed under.
  'src/apiserver/auth/rbac.ts -> src/apis/common/interned-strings.ts',
  // Counters and histograms cheaper per call than prom-client's (importing nothing of src/): the
  // server counts every write and times every request with them, as the controllers do.
  'src/apiserver/request-durations.ts -> src/runtime/hot-metrics.ts',
  'src/apiserver/write-counter.ts -> src/runtime/hot-metrics.ts',
  // Keys filed compactly under values (importing nothing of src/): the garbage collector files
  // each owner's dependents as informer stores file their indexes.
  'src/apiserver/lifecycle/garbage-collector.ts -> src/runtime/filed-keys.ts',
]);

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const src = join(root, 'src');

function sourceFiles(dir) {
  let found = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found = found.concat(sourceFiles(path));
    else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const targets = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier.startsWith('.')) targets.push(resolve(dirname(file), specifier));
  }
  return targets;
}

const folderOf = (file) => relative(src, file).split('/')[0];
const files = sourceFiles(src);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((t) => t.startsWith(src + '/'))]));

const problems = [];
for (const [file, targets] of graph) {
  const from = folderOf(file);
  for (const target of targets) {
    const to = folderOf(target);
    if (from === to || EXCEPTIONS.has(`${relative(root, file)} -> ${relative(root, target)}`)) continue;
    const allowed = ALLOWED.get(from);
    if (!allowed)
      problems.push(
        `${relative(root, file)}: src/${from}/ is not in the layer table of scripts/import-graph.js`,
      );
    else if (!allowed.has(to))
      problems.push(
        `${relative(root, file)} imports ${relative(root, target)}: src/${from}/ may not import src/${to}/ (DESIGN §7)`,
      );
  }
}

// Tarjan's strongly connected components; a component of more than one file, or a file that
// imports itself, is a circle.
let index = 0;
const indexOf = new Map();
const lowOf = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function connect(file) {
  indexOf.set(file, index);
  lowOf.set(file, index++);
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file) ?? []) {
    if (!graph.has(target)) continue;
    if (!indexOf.has(target)) {
      connect(target);
      lowOf.set(file, Math.min(lowOf.get(file), lowOf.get(target)));
    } else if (onStack.has(target)) lowOf.set(file, Math.min(lowOf.get(file), indexOf.get(target)));
  }
  if (lowOf.get(file) !== indexOf.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1 || graph.get(file).includes(file)) circles.push(component);
}
for (const file of graph.keys()) if (!indexOf.has(file)) connect(file);
for (const component of circles)
  problems.push(
    `import circle: ${component
      .map((file) => relative(root, file))
      .sort()
      .join(', ')}`,
  );

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
console.log(`import graph: ${graph.size} files, ${edges} imports, every one pointing down, no circle`);
