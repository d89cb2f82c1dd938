/**
 * bench/apiserver/crd-writes: the CPU of the API server's write path for custom resources, in
 * process (no HTTP), on the project's real CRDs (config/crd): NetworkBinding and ResourceBinding,
 * the kinds the fleet writes most, each written three ways:
 *   - create: a new object (spec and status as the controllers write them);
 *   - status: a JSON merge patch of `/status` changing one condition (the spec stays as stored);
 *   - spec:   an update of the spec through the main endpoint (the status stays as stored).
 *
 * For each, two measures, in CPU µs per write (process.cpuUsage, so a loaded machine inflates
 * them less than wall time):
 *   - `write`: the whole write — merge patch, updateObject/createObject (metadata, size checks,
 *     admission, generation, storage in the in-memory revision log) and the response's encoding;
 *   - per phase, each timed over the batch on the inputs the write path gives it: prune,
 *     default (the object and, for updates, the old one), validate (schema and list types), CEL
 *     (`x-kubernetes-validations`), size (one `encodedSize`; the write path measures twice),
 *     store (the revision log's transact) and encode (the presented JSON).
 *
 * Usage: node --import tsx bench/apiserver/crd-writes.ts [--writes N] [--rounds R] [--root DIR]
 *          [--kind NetworkBinding|ResourceBinding] [--op create|status|spec]
 * `--root DIR` runs the write path of another checkout (DIR/src/...), for A/B against a base
 * tree: run base and after alternately and compare the medians.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { parseFlags } from '../flags.ts';

interface Args {
  writes: number;
  rounds: number;
  root: string;
  kind: string;
  op: string;
}

const args = parseFlags<Args>(
  process.argv.slice(2),
  { writes: 2000, rounds: 5, root: '', kind: 'all', op: 'all' },
  { kind: ['all', 'NetworkBinding', 'ResourceBinding'], op: ['all', 'create', 'status', 'spec'] },
);
const root = resolve(args.root || join(import.meta.dirname, '..', '..'));

type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: Record<string, unknown> & { name?: string; namespace?: string };
  [key: string]: unknown;
};
type Type = { schema: unknown; storage: string; kind: string };

const load = (path: string) => import(join(root, 'src/apiserver', path));
const { Plane } = await load('plane.ts');
const { createObject, updateObject, readObject } = await load('writes.ts');
const { applyMergePatch } = await load('patch/merge-patch.ts');
const { typesOfCrd } = await load('resources/crd.ts');
const { presentedJson } = await load('encoding/presented-json.ts');
const { encodedSize } = await load('limits.ts');
const { pruneObject } = await load('admission/prune.ts');
const { withDefaults } = await load('admission/defaults.ts');
const { validateAgainstSchema } = await load('admission/validate.ts');
const { validateListTypes } = await load('admission/list-type.ts');
const { validateRules } = await load('admission/validation-rules.ts');

const crdOf = (file: string): KubeObject => parse(readFileSync(join(root, 'config/crd', file), 'utf8'));

const plane = new Plane('bench', '/planes/bench');
createObject(plane, plane.catalog.lookup('', 'v1', 'namespaces'), {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'ns' },
});

const condition = (type: string, status: string, message: string, generation = 1) => ({
  type,
  status,
  observedGeneration: generation,
  lastTransitionTime: '2026-12-03T19:00:00Z',
  reason: status === 'True' ? 'Ready' : 'Pending',
  message,
});

interface Kind {
  type: Type;
  /** A new object named `name`: spec and (for the status patches to change) a status. */
  object(name: string): KubeObject;
  /** The merge patch of a status write, the j-th. */
  statusPatch(j: number): unknown;
  /** The next spec of a spec update, the j-th. */
  spec(current: KubeObject, j: number): unknown;
}

const kinds: Record<string, Kind> = {
  NetworkBinding: {
    type: typesOfCrd(crdOf('networking.datumapis.com_networkbindings.yaml'))[0],
    object: (name) => ({
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'NetworkBinding',
      metadata: { name, namespace: 'ns', labels: { 'networking.datumapis.com/network': 'vpc' } },
      spec: {
        network: { namespace: 'ns', name: 'vpc' },
        location: { name: 'dfw' },
        consumer: { apiGroup: 'compute.datumapis.com', kind: 'Workload', name: name },
      },
    }),
    statusPatch: (j) => ({
      status: {
        networkContextRef: { namespace: 'ns', name: 'vpc-dfw' },
        conditions: [condition('Ready', j % 2 ? 'True' : 'False', `binding write ${j}`)],
      },
    }),
    spec: (current, j) => ({
      ...(current.spec as object),
      consumer: { apiGroup: 'compute.datumapis.com', kind: 'Workload', name: `w${j}` },
    }),
  },
  ResourceBinding: {
    type: typesOfCrd(crdOf('work.karmada.io_resourcebindings.yaml'))[0],
    object: (name) => ({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: {
        name,
        namespace: 'ns',
        labels: { 'propagationpolicy.karmada.io/permanent-id': 'c7d3c0c2-1a0e-4c55-9d7e-5b1c8f2f0a11' },
      },
      spec: {
        resource: {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'NetworkContext',
          namespace: 'ns',
          name,
          uid: '0b7f6f55-8a8c-4a43-a6d4-8d3d8f1f2e01',
          resourceVersion: '12',
        },
        placement: { clusterAffinity: { clusterNames: ['cell-dfw', 'cell-ord'] } },
        clusters: [{ name: 'cell-dfw' }, { name: 'cell-ord' }],
      },
    }),
    statusPatch: (j) => ({
      status: {
        schedulerObservedGeneration: 1,
        conditions: [
          condition('Scheduled', 'True', 'Binding has been scheduled successfully.'),
          condition('FullyApplied', j % 2 ? 'True' : 'False', `applied ${j}`),
        ],
        aggregatedStatus: [
          { clusterName: 'cell-dfw', applied: true, health: 'Healthy' },
          { clusterName: 'cell-ord', applied: j % 2 === 1, health: 'Unknown' },
        ],
      },
    }),
    spec: (current, j) => ({
      ...(current.spec as object),
      resource: { ...((current.spec as Record<string, object>).resource ?? {}), resourceVersion: String(j) },
    }),
  },
};

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

let serial = 0;
const PHASES = ['prune', 'default', 'validate', 'cel', 'size', 'store', 'encode'] as const;
type Phase = (typeof PHASES)[number];
type Op = 'create' | 'status' | 'spec';

/** One batch of `n` writes of `op`: the whole-write µs, then the µs of each phase. */
function batch(kind: Kind, op: Op, n: number): { write: number } & Record<Phase, number> {
  const { type } = kind;
  const schema = type.schema;
  const names = Array.from({ length: n }, () => `o-${serial++}`);
  // The whole write.
  let start = cpu();
  if (op === 'create') {
    for (const name of names) presentedJson(type, createObject(plane, type, kind.object(name)));
  } else {
    const existing = names.map((name) => createObject(plane, type, kind.object(name)));
    if (op === 'spec') for (const o of existing) writeStatus(kind, o.metadata.name, 0);
    start = cpu();
    existing.forEach((o, j) => {
      const stored = op === 'status' ? writeStatus(kind, o.metadata.name, j + 1) : writeSpec(kind, o, j);
      presentedJson(type, stored);
    });
  }
  const write = (cpu() - start) / n;

  // The phases, on the inputs the write path gives them: for updates the object it admits (the
  // stored one with the write's change, sharing the rest) and the stored one as old.
  const pairs: { object: KubeObject; old?: KubeObject }[] = names.map((name, j) => {
    if (op === 'create') {
      const object = kind.object(`p-${name}`);
      return { object: { ...object, metadata: { ...object.metadata, uid: 'u', generation: 1 } } };
    }
    const old = readObject(plane, type, 'ns', name) as KubeObject;
    if (op === 'status') {
      const patched = applyMergePatch(old, kind.statusPatch(j + 7)) as KubeObject;
      return { object: { ...old, status: patched.status }, old };
    }
    return { object: { ...old, spec: kind.spec(old, j + 7) }, old };
  });
  const phases = {} as Record<Phase, number>;
  const time = (phase: Phase, run: () => void) => {
    const t = cpu();
    run();
    phases[phase] = (cpu() - t) / n;
  };
  let pruned: KubeObject[] = [];
  time('prune', () => (pruned = pairs.map((p) => pruneObject(p.object, schema).object)));
  let defaulted: { object: unknown; old: unknown }[] = [];
  time(
    'default',
    () =>
      (defaulted = pruned.map((object, i) => ({
        object: withDefaults(object, schema),
        old: pairs[i].old && withDefaults(pairs[i].old, schema),
      }))),
  );
  time('validate', () => {
    for (const d of defaulted) {
      validateAgainstSchema(d.object, schema);
      validateListTypes(d.object, schema);
    }
  });
  time('cel', () => {
    for (const d of defaulted) validateRules(d.object, d.old, schema);
  });
  time('size', () => {
    for (const d of defaulted) encodedSize(d.object);
  });
  const stored: KubeObject[] = [];
  time('store', () => {
    defaulted.forEach((d, i) => {
      const key = `ns/phase-${names[i]}`;
      stored.push(plane.log.transact([{ resource: type.storage, key, object: d.object }])[0]);
    });
  });
  time('encode', () => {
    for (const s of stored) presentedJson(type, s);
  });
  return { write, ...phases };
}

function writeStatus(kind: Kind, name: string, j: number): KubeObject {
  const current = readObject(plane, kind.type, 'ns', name) as KubeObject;
  const patched = applyMergePatch(current, kind.statusPatch(j)) as KubeObject;
  return updateObject(plane, kind.type, patched, current, { subresource: 'status', warnings: [] });
}

function writeSpec(kind: Kind, created: KubeObject, j: number): KubeObject {
  const current = readObject(plane, kind.type, 'ns', created.metadata.name!) as KubeObject;
  return updateObject(plane, kind.type, { ...current, spec: kind.spec(current, j) }, current, {
    warnings: [],
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ops = (['create', 'status', 'spec'] as const).filter((op) => args.op === 'all' || args.op === op);
for (const name of Object.keys(kinds)) if (args.kind !== 'all' && args.kind !== name) delete kinds[name];
const results = new Map<string, Record<string, number[]>>();
for (const kind of Object.values(kinds)) for (const op of ops) batch(kind, op, 200); // warm-up
for (let round = 0; round < args.rounds; round++) {
  for (const [name, kind] of Object.entries(kinds)) {
    for (const op of ops) {
      const figures = batch(kind, op, args.writes);
      const entry = results.get(`${name} ${op}`) ?? {};
      for (const [key, value] of Object.entries(figures)) (entry[key] ??= []).push(value);
      results.set(`${name} ${op}`, entry);
    }
  }
}
console.log(
  `root ${root}; ${args.writes} writes × ${args.rounds} rounds; CPU µs per write, median of rounds`,
);
console.log(['kind op'.padEnd(22), 'write', ...PHASES].map((h, i) => (i ? h.padStart(9) : h)).join(''));
for (const [key, entry] of results) {
  const cells = ['write', ...PHASES].map((column) => median(entry[column]).toFixed(1).padStart(9));
  console.log(key.padEnd(22) + cells.join(''));
}
