/**
 * The write fuzzer (issue 13): random and mutated bodies for create, update, every patch type and
 * apply, on a custom resource and on ConfigMaps, sent as a consumer-like identity with rights on
 * those two kinds only. Shared by the CI test (a few hundred cases) and `npm run bench:fuzz`.
 *
 * Guarantees checked on every case: the server never answers 5xx, keeps answering `/readyz`,
 * and nothing changes outside the object the request addresses (for a create: at most one new
 * object). The seed is printed, so a failure replays with `--seed`.
 */
import fc from 'fast-check';
import { startTestServer } from './apiserver.ts';
import { call, type PlaneTarget } from './child-server.ts';
import { identityWithRole, targetOf } from './hostile.ts';
import { widgetCrd } from './widget-crd.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const KINDS = [
  { path: CONFIGMAPS, apiVersion: 'v1', kind: 'ConfigMap', storage: '/configmaps', strategic: true },
  {
    path: WIDGETS,
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    storage: 'example.com/widgets',
    strategic: false,
  },
];
const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

export interface FuzzResult {
  seed: number;
  runs: number;
  requests: number;
  byStatus: Record<string, number>;
}

const WIDGET_CRD = widgetCrd({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['small', 'large'] },
        replicas: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' } },
      },
    },
  },
});

/** A value that may appear anywhere in a mutated body, hostile ones included. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('a b/c!', 'x'.repeat(300), '%ff', '', null, -1, 1e308, [{}], 'str', { '': '' }),
);

const metadataField = fc.constantFrom(
  'name',
  'generateName',
  'namespace',
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
  'resourceVersion',
  'uid',
  'managedFields',
  'deletionTimestamp',
  'generation',
);

/** A valid object of `kind` named `name`, then a few fields replaced by hostile values. */
function mutatedObject(kind: (typeof KINDS)[number], name: string): fc.Arbitrary<Record<string, unknown>> {
  const base = {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name, labels: { app: 'web' } },
    ...(kind.kind === 'ConfigMap' ? { data: { k: 'v' } } : { spec: { size: 'small', replicas: 1 } }),
  };
  return fc
    .array(
      fc.tuple(
        fc.oneof(
          metadataField.map((f) => ['metadata', f]),
          fc.constantFrom(
            ['data'],
            ['data', 'k'],
            ['spec'],
            ['spec', 'size'],
            ['spec', 'tags'],
            ['kind'],
            ['apiVersion'],
          ),
          fc
            .tuple(fc.constantFrom('metadata', 'spec', 'data'), fc.string({ maxLength: 8 }))
            .map(([a, b]) => [a, b]),
        ),
        hostileValue,
      ),
      { maxLength: 4 },
    )
    .map((mutations) => {
      const object = structuredClone(base) as Record<string, any>;
      for (const [path, value] of mutations) {
        let at = object;
        for (const key of path.slice(0, -1)) {
          if (typeof at[key] !== 'object' || at[key] === null || Array.isArray(at[key])) at[key] = {};
          at = at[key];
        }
        // A copy: hostileValue's constants are single instances, and a later mutation writing
        // into this one would change the constant for every case after it — and could make a
        // body hold itself (a constant set both as `spec` and under it), which no JSON encodes.
        at[path[path.length - 1]] = structuredClone(value);
      }
      return object;
    });
}

const jsonPatch = fc.array(
  fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
    path: fc.constantFrom(
      '',
      '/',
      '/metadata/labels/x',
      '/metadata/finalizers',
      '/data',
      '/spec/tags/-',
      '/x',
      '/x/-',
      '/metadata/name',
      '/a~1b',
    ),
    from: fc.constantFrom('/metadata', '/data', '/spec', '/x', '/metadata/labels'),
    value: hostileValue,
  }),
  { maxLength: 30 },
);

/** One request: method, path, body (a string is sent as is) and Content-Type. */
interface Case {
  kind: (typeof KINDS)[number];
  method: 'POST' | 'PUT' | 'PATCH';
  name: string;
  contentType: string;
  body: unknown;
}

const cases: fc.Arbitrary<Case> = fc.constantFrom(...KINDS).chain((kind) =>
  fc.oneof(
    fc.record({
      kind: fc.constant(kind),
      method: fc.constant<'POST'>('POST'),
      name: fc.constantFrom('target', 'other-new'),
      contentType: fc.constantFrom('application/json', 'application/yaml', 'text/plain'),
      body: fc.oneof(mutatedObject(kind, 'target'), fc.jsonValue({ maxDepth: 4 }), fc.string()),
    }),
    fc.record({
      kind: fc.constant(kind),
      method: fc.constant<'PUT'>('PUT'),
      name: fc.constant('target'),
      contentType: fc.constant('application/json'),
      body: fc.oneof(mutatedObject(kind, 'target'), fc.jsonValue({ maxDepth: 4 })),
    }),
    fc.record({
      kind: fc.constant(kind),
      method: fc.constant<'PATCH'>('PATCH'),
      name: fc.constant('target'),
      contentType: fc.constantFrom(...PATCH_TYPES),
      body: fc.oneof(jsonPatch, mutatedObject(kind, 'target'), fc.jsonValue({ maxDepth: 4 }), fc.string()),
    }),
  ),
);

function snapshot(target: { list(resource: string): unknown[] }): Map<string, string> {
  const objects = new Map<string, string>();
  for (const kind of KINDS) {
    for (const object of target.list(kind.storage) as { metadata: { namespace?: string; name: string } }[]) {
      objects.set(
        `${kind.kind}/${object.metadata.namespace}/${object.metadata.name}`,
        JSON.stringify(object),
      );
    }
  }
  return objects;
}

/** Runs `runs` cases from `seed`; throws (with fast-check's report) on the first violation. */
export async function runFuzz(
  runs: number,
  seed: number,
  log: (line: string) => void = console.log,
): Promise<FuzzResult> {
  log(`fuzz: ${runs} cases, seed ${seed}`);
  const t = await startTestServer(['hub']);
  const byStatus: Record<string, number> = {};
  let requests = 0;
  let consumer: PlaneTarget | undefined;
  const admin = targetOf(t.server, 'hub', t.server.adminToken);
  try {
    const crd = await call(
      admin,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      WIDGET_CRD,
    );
    if (crd.status !== 201) throw new Error(`CRD: ${crd.body}`);
    for (const kind of KINDS) {
      for (const name of ['target', 'bystander']) {
        const body = { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name } };
        // A just-created CRD may take a moment to be served.
        for (let i = 0; ; i++) {
          const res = await call(admin, 'POST', kind.path, body);
          if (res.status === 201) break;
          if (i > 100) throw new Error(`${kind.kind} ${name}: ${res.body}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
    consumer = await identityWithRole(t.server, 'hub', 'default', 'consumer-fuzz', [
      { apiGroups: ['', 'example.com'], resources: ['configmaps', 'widgets'], verbs: ['create'] },
      {
        apiGroups: ['', 'example.com'],
        resources: ['configmaps', 'widgets'],
        resourceNames: ['target', 'other-new'],
        verbs: ['get', 'update', 'patch'],
      },
    ]);
    const plane = t.server.plane('hub')!;
    const as = consumer;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const before = snapshot(plane.log);
        const path =
          c.method === 'POST'
            ? c.kind.path
            : `${c.kind.path}/${c.name}${c.contentType === PATCH_TYPES[3] ? '?fieldManager=fuzz' : ''}`;
        const body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
        const res = await call(as, c.method, path, body, c.contentType);
        requests += 1;
        byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
        if (res.status >= 500) throw new Error(`${c.method} ${path} answered ${res.status}: ${res.body}`);
        const ready = await call(as, 'GET', '/readyz');
        if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status}`);
        const after = snapshot(plane.log);
        const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
          (k) => before.get(k) !== after.get(k),
        );
        const allowed = (key: string) =>
          c.method === 'POST' ? !before.has(key) : key === `${c.kind.kind}/default/${c.name}`;
        const outside = changed.filter((key) => !allowed(key));
        if (outside.length > 0 || (c.method === 'POST' && changed.length > 1)) {
          throw new Error(`${c.method} ${path} changed ${changed.join(', ')}`);
        }
        // Keep the target present for the next case, and remove what a create added.
        for (const key of changed.filter((k) => !before.has(k))) {
          const [, , name] = key.split('/');
          const kind = KINDS.find((k) => key.startsWith(`${k.kind}/`))!;
          await call(admin, 'DELETE', `${kind.path}/${name}`);
        }
        if (!after.has(`${c.kind.kind}/default/target`) && before.has(`${c.kind.kind}/default/target`)) {
          throw new Error('the target disappeared');
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  } finally {
    consumer?.agent.destroy();
    admin.agent.destroy();
    await t.stop();
  }
  log(`fuzz: ${requests} requests, by status ${JSON.stringify(byStatus)}`);
  return { seed, runs, requests, byStatus };
}
