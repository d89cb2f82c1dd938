/**
 * The embedded API server through the installed kubectl 1.32, as an operator uses it: every
 * command runs against the path-prefixed plane `hub` (context `hub`, served at /planes/hub),
 * and one against the root plane. Built-in kinds, a CRD with printer columns, watches, waits,
 * every patch flavour, apply (client- and server-side), deletion and errors as kubectl prints them.
 *
 * Assumes kubectl 1.32 on PATH. One server serves the whole file; each test works in a
 * namespace of its own. Every wait is bounded (`eventually` or kubectl's `--timeout`).
 */
import * as k8s from '@kubernetes/client-node';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import { Kubectl } from '../support/kubectl.ts';
import { cellsOf, headerOf } from '../support/kubectl-table.ts';
import { widgetCrd } from '../support/widget-crd.ts';

const widgets = widgetCrd(
  {
    type: 'object',
    description: 'A Widget is a thing the tests paint and resize.',
    properties: {
      spec: {
        type: 'object',
        description: 'WidgetSpec is what the owner wants of a widget.',
        properties: {
          color: { type: 'string', description: 'The colour the widget is painted.' },
          size: { type: 'integer', description: 'How many units wide the widget is.' },
          shape: { type: 'string', description: 'The outline of the widget.' },
          owner: { type: 'string', description: 'Who looks after the widget.' },
        },
      },
      status: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                type: { type: 'string' },
                status: { type: 'string' },
                reason: { type: 'string' },
                message: { type: 'string' },
                observedGeneration: { type: 'integer' },
                lastTransitionTime: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    },
  },
  {
    subresources: { status: {} },
    additionalPrinterColumns: [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Size', type: 'integer', priority: 1, jsonPath: '.spec.size' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  { shortNames: ['wd'], categories: ['gadgets'] },
);

const gizmoCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.example.org' },
  spec: {
    group: 'example.org',
    scope: 'Namespaced',
    names: { plural: 'gizmos', kind: 'Gizmo' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

function widget(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec };
}

describe('apiserver through kubectl', () => {
  let t: TestServer;
  let core: k8s.CoreV1Api;
  /** Watches the hub holds for itself (its CRD catalog), not for a client. */
  let ownWatches = 0;

  const hub = (...args: string[]) => t.kubectl.run(['--context', 'hub', ...args]);
  const hubOk = (...args: string[]) => t.kubectl.ok(['--context', 'hub', ...args]);
  const hubJson = async (...args: string[]) => JSON.parse(await hubOk(...args, '-o', 'json'));
  const clientWatches = () => t.server.plane('hub')!.log.watcherCount() - ownWatches;

  async function manifest(file: string, ...objects: object[]): Promise<string> {
    const path = join(t.dir, file);
    await writeFile(path, objects.map((o) => stringify(o)).join('---\n'));
    return path;
  }

  async function apply(file: string, ...objects: object[]): Promise<string> {
    return hubOk('apply', '-f', await manifest(file, ...objects));
  }

  /** `kubectl patch widget` arguments; the patch is sent as JSON. */
  function patchWidget(namespace: string, name: string, type: 'merge' | 'json', patch: unknown): string[] {
    return ['patch', 'widget', name, '-n', namespace, `--type=${type}`, '-p', JSON.stringify(patch)];
  }

  async function namespace(name: string): Promise<void> {
    await core.createNamespace({ body: { metadata: { name } } });
  }

  async function untilWatching(what: string): Promise<void> {
    await eventually(() => (clientWatches() > 0 ? true : undefined), 10_000, what);
  }

  /** Starts a kubectl that keeps running; `printed` waits for its output to match. */
  function spawnHub(...args: string[]) {
    const child: ChildProcessWithoutNullStreams = t.kubectl.spawn(['--context', 'hub', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const printed = (pattern: RegExp, what: string) =>
      eventually(() => (pattern.test(stdout) ? true : undefined), 10_000, `${what}; stderr: ${stderr}`);
    return { child, printed, output: () => stdout };
  }

  /** Kills a spawned kubectl and waits until the server has dropped its watch. */
  async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
    child.kill('SIGKILL');
    await eventually(() => (clientWatches() === 0 ? true : undefined), 5000, 'the watch to close');
  }

  before(async () => {
    t = await startTestServer(['hub']);
    core = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    ownWatches = t.server.plane('hub')!.log.watcherCount();
    assert.equal(
      await apply('widget-crd.yaml', widgets),
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n',
    );
  });
  after(async () => t?.stop());

  it('creates a namespace (a protobuf body) that get lists as Active under STATUS', async () => {
    assert.equal(await hubOk('create', 'namespace', 'kc-ns'), 'namespace/kc-ns created\n');
    const listed = await hubOk('get', 'ns', 'kc-ns');
    assert.deepEqual(headerOf(listed), ['NAME', 'STATUS', 'AGE']);
    assert.deepEqual(cellsOf(listed, 'NAME', 'STATUS'), [['kc-ns', 'Active']]);
    const ns = await hubJson('get', 'ns', 'kc-ns');
    assert.equal(ns.metadata.labels['kubernetes.io/metadata.name'], 'kc-ns');
    assert.deepEqual(ns.spec.finalizers, ['kubernetes']);
  });

  it('creates a ConfigMap and a Secret from literals, and returns the Secret data base64-encoded', async () => {
    await namespace('kc-literals');
    const n = ['-n', 'kc-literals'];
    const configMap = await hubOk('create', 'configmap', 'settings', '--from-literal=mtu=1460', ...n);
    assert.equal(configMap, 'configmap/settings created\n');
    assert.deepEqual((await hubJson('get', 'cm', 'settings', ...n)).data, { mtu: '1460' });
    const secret = await hubOk(
      'create',
      'secret',
      'generic',
      'creds',
      '--from-literal=password=s3cret',
      ...n,
    );
    assert.equal(secret, 'secret/creds created\n');
    const password = await hubOk('get', 'secret', 'creds', '-o', 'jsonpath={.data.password}', ...n);
    assert.equal(password, Buffer.from('s3cret').toString('base64'));
    const listed = await hubOk('get', 'secrets', ...n);
    assert.deepEqual(headerOf(listed), ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.deepEqual(cellsOf(listed, 'NAME', 'TYPE', 'DATA'), [['creds', 'Opaque', '1']]);
  });

  it('stores a Secret applied with stringData as base64 data and never returns stringData', async () => {
    await namespace('kc-stringdata');
    const applied = await apply('secret.yaml', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'token', namespace: 'kc-stringdata' },
      data: { user: Buffer.from('admin').toString('base64') },
      stringData: { token: 'abc123' },
    });
    assert.equal(applied, 'secret/token created\n');
    const secret = await hubJson('get', 'secret', 'token', '-n', 'kc-stringdata');
    assert.deepEqual(secret.data, {
      user: Buffer.from('admin').toString('base64'),
      token: Buffer.from('abc123').toString('base64'),
    });
    assert.equal(secret.type, 'Opaque');
    assert.equal('stringData' in secret, false);
    const read = await core.readNamespacedSecret({ name: 'token', namespace: 'kc-stringdata' });
    assert.equal(read.stringData, undefined);
  });

  it('applies a multi-document file, and get by plural, short name and category prints the printer columns', async () => {
    const applied = await apply(
      'print.yaml',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kc-print' } },
      widget('kc-print', 'w1', { color: 'red', size: 3 }),
      widget('kc-print', 'w2', { color: 'blue', size: 5 }),
    );
    assert.equal(
      applied,
      'namespace/kc-print created\nwidget.example.com/w1 created\nwidget.example.com/w2 created\n',
    );
    const ready = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    await hubOk(...patchWidget('kc-print', 'w1', 'merge', ready), '--subresource=status');
    for (const resource of ['widgets', 'wd', 'widgets.example.com', 'gadgets']) {
      const listed = await hubOk('get', resource, '-n', 'kc-print');
      assert.deepEqual(headerOf(listed), ['NAME', 'COLOR', 'READY', 'AGE'], resource);
      assert.deepEqual(
        cellsOf(listed, 'NAME', 'COLOR', 'READY'),
        [
          ['w1', 'red', 'True'],
          ['w2', 'blue', ''],
        ],
        resource,
      );
    }
    const wide = await hubOk('get', 'widgets', '-n', 'kc-print', '-o', 'wide');
    assert.deepEqual(headerOf(wide), ['NAME', 'COLOR', 'READY', 'SIZE', 'AGE']);
    assert.deepEqual(cellsOf(wide, 'NAME', 'SIZE'), [
      ['w1', '3'],
      ['w2', '5'],
    ]);
    const everywhere = await hubOk('get', 'widgets', '-A');
    assert.deepEqual(headerOf(everywhere), ['NAMESPACE', 'NAME', 'COLOR', 'READY', 'AGE']);
    assert.deepEqual(
      cellsOf(everywhere, 'NAMESPACE', 'NAME', 'COLOR').filter(([ns]) => ns === 'kc-print'),
      [
        ['kc-print', 'w1', 'red'],
        ['kc-print', 'w2', 'blue'],
      ],
    );
  });

  it('lists the CRD kind in api-resources with its short name, and explains its fields from the schema', async () => {
    const resources = await hubOk('api-resources', '--api-group=example.com');
    assert.deepEqual(headerOf(resources), ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    assert.deepEqual(cellsOf(resources, 'NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'), [
      ['widgets', 'wd', 'example.com/v1', 'true', 'Widget'],
    ]);
    const explained = await hubOk('explain', 'widgets.spec');
    assert.match(explained, /^GROUP:\s+example\.com\nKIND:\s+Widget\nVERSION:\s+v1\n/);
    assert.match(explained, /^FIELD: spec <Object>$/m);
    assert.match(explained, /WidgetSpec is what the owner wants of a widget\./);
    assert.match(explained, /^\s+color\s+<string>\n\s+The colour the widget is painted\.$/m);
    assert.match(explained, /^\s+size\s+<integer>\n\s+How many units wide the widget is\.$/m);
  });

  it('get <plural> -w prints the row of a change made after it started', async () => {
    await namespace('kc-watch-list');
    await apply('watch-list.yaml', widget('kc-watch-list', 'w1', { color: 'red' }));
    const watch = spawnHub('get', 'widgets', '-n', 'kc-watch-list', '-w');
    try {
      await watch.printed(/^w1\s+red\s/m, 'the initial row');
      await hubOk(...patchWidget('kc-watch-list', 'w1', 'merge', { spec: { color: 'green' } }));
      await watch.printed(/^w1\s+green\s/m, 'the changed row');
      await apply('watch-list-2.yaml', widget('kc-watch-list', 'w2', { color: 'blue' }));
      await watch.printed(/^w2\s+blue\s/m, 'the added row');
    } finally {
      await stop(watch.child);
    }
  });

  it('get <kind> <name> -w prints the first change after it started, though kubectl drops the initial event', async () => {
    await namespace('kc-watch-one');
    await apply(
      'watch-one.yaml',
      widget('kc-watch-one', 'w1', { color: 'red' }),
      widget('kc-watch-one', 'w2', { color: 'red' }),
    );
    const watch = spawnHub('get', 'widget', 'w1', '-n', 'kc-watch-one', '-w');
    try {
      await watch.printed(/^w1\s+red\s/m, 'the initial row');
      await untilWatching('kubectl get -w to start watching');
      await hubOk(...patchWidget('kc-watch-one', 'w2', 'merge', { spec: { color: 'blue' } }));
      await hubOk(...patchWidget('kc-watch-one', 'w1', 'merge', { spec: { color: 'green' } }));
      await watch.printed(/^w1\s+green\s/m, 'the changed row');
      assert.doesNotMatch(watch.output(), /^w2/m, 'only the named widget is watched');
    } finally {
      await stop(watch.child);
    }
  });

  it('wait --for=condition=Ready returns once a status patch sets it, and the status patch keeps the generation', async () => {
    await namespace('kc-wait');
    await apply('wait.yaml', widget('kc-wait', 'w1', { color: 'red' }));
    const waiting = hub('wait', '--for=condition=Ready', 'widget/w1', '-n', 'kc-wait', '--timeout=20s');
    await untilWatching('kubectl wait to start watching');
    const ready = { type: 'Ready', status: 'True', reason: 'Painted', observedGeneration: 1 };
    const status = { status: { conditions: [ready] }, spec: { color: 'ignored' } };
    const patched = await hubOk(...patchWidget('kc-wait', 'w1', 'merge', status), '--subresource=status');
    assert.equal(patched, 'widget.example.com/w1 patched\n');
    const waited = await waiting;
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, 'widget.example.com/w1 condition met\n');
    const stored = await hubJson('get', 'widget', 'w1', '-n', 'kc-wait');
    assert.equal(stored.metadata.generation, 1);
    assert.equal(stored.spec.color, 'red', 'a status patch changes only status');
    assert.deepEqual(stored.status.conditions, [ready]);
  });

  it('patch --type=merge and --type=json change a widget, and a failing json-patch test changes nothing', async () => {
    await namespace('kc-patch');
    await apply('patch.yaml', widget('kc-patch', 'w1', { color: 'red', size: 1 }));
    const merged = await hubOk(
      ...patchWidget('kc-patch', 'w1', 'merge', { spec: { color: 'green', size: null } }),
    );
    assert.equal(merged, 'widget.example.com/w1 patched\n');
    assert.deepEqual((await hubJson('get', 'widget', 'w1', '-n', 'kc-patch')).spec, { color: 'green' });
    await hubOk(...patchWidget('kc-patch', 'w1', 'json', [{ op: 'add', path: '/spec/size', value: 7 }]));
    const patched = await hubJson('get', 'widget', 'w1', '-n', 'kc-patch');
    assert.deepEqual(patched.spec, { color: 'green', size: 7 });
    assert.equal(patched.metadata.generation, 3);

    const replaceUnlessPurple = [
      { op: 'replace', path: '/spec/size', value: 9 },
      { op: 'test', path: '/spec/color', value: 'purple' },
    ];
    const failing = await hub(...patchWidget('kc-patch', 'w1', 'json', replaceUnlessPurple));
    assert.equal(failing.code, 1);
    assert.equal(
      failing.stderr,
      'The request is invalid: testing value /spec/color failed: test operation failed\n',
    );
    const unchanged = await hubJson('get', 'widget', 'w1', '-n', 'kc-patch');
    assert.equal(unchanged.metadata.resourceVersion, patched.metadata.resourceVersion);
    assert.deepEqual(unchanged.spec, { color: 'green', size: 7 });
  });

  it('a default (strategic) patch merges into a ConfigMap and is refused on a custom resource', async () => {
    await namespace('kc-strategic');
    const n = ['-n', 'kc-strategic'];
    await hubOk('create', 'configmap', 'x', '--from-literal=a=1', ...n);
    assert.equal(await hubOk('patch', 'cm', 'x', ...n, '-p', '{"data":{"k":"v"}}'), 'configmap/x patched\n');
    assert.deepEqual((await hubJson('get', 'cm', 'x', ...n)).data, { a: '1', k: 'v' });

    await apply('strategic.yaml', widget('kc-strategic', 'w1', { color: 'red' }));
    const refused = await hub('patch', 'widget', 'w1', ...n, '-p', '{"spec":{"color":"blue"}}');
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: ' +
        'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n',
    );
    assert.equal((await hubJson('get', 'widget', 'w1', ...n)).spec.color, 'red');
  });

  it('label and annotate a widget, and get -l selects it by the new label', async () => {
    await namespace('kc-label');
    const n = ['-n', 'kc-label'];
    await apply('label.yaml', widget('kc-label', 'w1', { color: 'red' }), widget('kc-label', 'w2', {}));
    assert.equal(await hubOk('label', 'widget', 'w1', 'tier=gold', ...n), 'widget.example.com/w1 labeled\n');
    const annotated = await hubOk('annotate', 'widget', 'w1', 'note=hello', ...n);
    assert.equal(annotated, 'widget.example.com/w1 annotated\n');
    const labelled = await hubJson('get', 'widget', 'w1', ...n);
    assert.equal(labelled.metadata.labels.tier, 'gold');
    assert.equal(labelled.metadata.annotations.note, 'hello');
    assert.equal(labelled.metadata.generation, 1, 'metadata changes keep the generation');
    assert.deepEqual(cellsOf(await hubOk('get', 'widgets', '-l', 'tier=gold', ...n), 'NAME'), [['w1']]);
  });

  it('re-applying an edited file removes the field dropped from it and keeps fields others set', async () => {
    await namespace('kc-apply');
    const file = await manifest(
      'apply.yaml',
      widget('kc-apply', 'w1', { color: 'red', size: 3, shape: 'round' }),
    );
    assert.equal(await hubOk('apply', '-f', file), 'widget.example.com/w1 created\n');
    assert.equal(await hubOk('apply', '-f', file), 'widget.example.com/w1 unchanged\n');
    await hubOk(...patchWidget('kc-apply', 'w1', 'merge', { spec: { owner: 'ops' } }));
    await manifest('apply.yaml', widget('kc-apply', 'w1', { color: 'blue', size: 3 }));
    assert.equal(await hubOk('apply', '-f', file), 'widget.example.com/w1 configured\n');
    const applied = await hubJson('get', 'widget', 'w1', '-n', 'kc-apply');
    assert.deepEqual(applied.spec, { color: 'blue', size: 3, owner: 'ops' });
    const lastApplied = applied.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'];
    assert.deepEqual(JSON.parse(lastApplied).spec, { color: 'blue', size: 3 });
  });

  it('apply --server-side creates a widget, then updates it and drops what it no longer applies', async () => {
    await namespace('kc-ssa');
    const file = await manifest('ssa.yaml', widget('kc-ssa', 'w1', { color: 'red', size: 3 }));
    const created = await hubOk('apply', '--server-side', '-f', file);
    assert.equal(created, 'widget.example.com/w1 serverside-applied\n');
    await manifest('ssa.yaml', widget('kc-ssa', 'w1', { color: 'blue' }));
    const updated = await hubOk('apply', '--server-side', '-f', file);
    assert.equal(updated, 'widget.example.com/w1 serverside-applied\n');
    const applied = await hubJson('get', 'widget', 'w1', '-n', 'kc-ssa');
    assert.deepEqual(applied.spec, { color: 'blue' });
    assert.equal(applied.metadata.generation, 2);
  });

  it('replace -f swaps the whole spec, and create -f of an existing object says AlreadyExists', async () => {
    await namespace('kc-replace');
    const file = await manifest('replace.yaml', widget('kc-replace', 'w1', { color: 'red', size: 3 }));
    assert.equal(await hubOk('create', '-f', file), 'widget.example.com/w1 created\n');
    const again = await hub('create', '-f', file);
    assert.equal(again.code, 1);
    assert.equal(
      again.stderr,
      `Error from server (AlreadyExists): error when creating "${file}": widgets.example.com "w1" already exists\n`,
    );
    await manifest('replace.yaml', widget('kc-replace', 'w1', { shape: 'square' }));
    assert.equal(await hubOk('replace', '-f', file), 'widget.example.com/w1 replaced\n');
    const replaced = await hubJson('get', 'widget', 'w1', '-n', 'kc-replace');
    assert.deepEqual(replaced.spec, { shape: 'square' });
    assert.equal(replaced.metadata.generation, 2);
  });

  it('--dry-run=server answers like a create and stores nothing', async () => {
    await namespace('kc-dry');
    const n = ['-n', 'kc-dry'];
    const dryConfigMap = await hubOk(
      'create',
      'configmap',
      'dry',
      '--from-literal=a=b',
      '--dry-run=server',
      ...n,
    );
    assert.equal(dryConfigMap, 'configmap/dry created (server dry run)\n');
    const file = await manifest('dry.yaml', widget('kc-dry', 'w1', { color: 'red' }));
    const answered = await hubJson('create', '-f', file, '--dry-run=server');
    assert.equal(answered.spec.color, 'red');
    assert.ok(answered.metadata.uid, 'the server answers with the object as it would store it');
    assert.deepEqual((await core.listNamespacedConfigMap({ namespace: 'kc-dry' })).items, []);
    const widgets = await hub('get', 'widgets', ...n, '-o', 'name');
    assert.deepEqual([widgets.code, widgets.stdout], [0, '']);
  });

  it('deletes a widget and a namespace, after which get prints NotFound as kubectl does', async () => {
    await namespace('kc-delete');
    const n = ['-n', 'kc-delete'];
    await apply('delete.yaml', widget('kc-delete', 'w1', {}), widget('kc-delete', 'w2', {}));
    const deleted = await hubOk('delete', 'widget', 'w1', ...n, '--timeout=20s');
    assert.equal(deleted, 'widget.example.com "w1" deleted\n');
    const gone = await hub('get', 'widget', 'w1', ...n);
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, 'Error from server (NotFound): widgets.example.com "w1" not found\n');

    const deletedNs = await hubOk('delete', 'namespace', 'kc-delete', '--timeout=20s');
    assert.equal(deletedNs, 'namespace "kc-delete" deleted\n');
    const nsGone = await hub('get', 'ns', 'kc-delete');
    assert.equal(nsGone.code, 1);
    assert.equal(nsGone.stderr, 'Error from server (NotFound): namespaces "kc-delete" not found\n');
    const remaining = cellsOf(await hubOk('get', 'widgets', '-A'), 'NAMESPACE', 'NAME');
    assert.deepEqual(
      remaining.filter(([ns]) => ns === 'kc-delete'),
      [],
      'the namespace took its widgets with it',
    );
  });

  it('shows an events.k8s.io Event recorded with client-node in kubectl get events, with its note as message', async () => {
    await namespace('kc-events');
    const events = t.kubeConfig('hub').makeApiClient(k8s.EventsV1Api);
    await events.createNamespacedEvent({
      namespace: 'kc-events',
      body: {
        metadata: { name: 'w1.painted' },
        eventTime: new Date(),
        reportingController: 'example.com/painter',
        reportingInstance: 'painter-0',
        action: 'Paint',
        type: 'Normal',
        reason: 'Painted',
        note: 'widget w1 is painted red',
        regarding: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', namespace: 'kc-events' },
      },
    });
    const listed = await hubOk('get', 'events', '-n', 'kc-events');
    assert.deepEqual(headerOf(listed), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.deepEqual(cellsOf(listed, 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'), [
      ['Normal', 'Painted', 'widget/w1', 'widget w1 is painted red'],
    ]);
    const coreEvent = await hubJson('get', 'events.v1.', 'w1.painted', '-n', 'kc-events');
    assert.equal(coreEvent.message, 'widget w1 is painted red');
    assert.deepEqual(coreEvent.involvedObject, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      name: 'w1',
      namespace: 'kc-events',
    });
  });

  it('deleting a CRD removes its kind: get <plural> then says the server has no such resource type', async () => {
    await namespace('kc-crd');
    assert.equal(
      await apply('gizmo-crd.yaml', gizmoCrd),
      'customresourcedefinition.apiextensions.k8s.io/gizmos.example.org created\n',
    );
    await hubOk('wait', '--for=condition=Established', 'crd/gizmos.example.org', '--timeout=20s');
    await apply('gizmo.yaml', {
      apiVersion: 'example.org/v1',
      kind: 'Gizmo',
      metadata: { name: 'g1', namespace: 'kc-crd' },
    });
    assert.deepEqual(cellsOf(await hubOk('get', 'gizmos', '-n', 'kc-crd'), 'NAME'), [['g1']]);
    assert.equal(
      await hubOk('delete', 'crd', 'gizmos.example.org', '--timeout=20s'),
      'customresourcedefinition.apiextensions.k8s.io "gizmos.example.org" deleted\n',
    );
    assert.equal(await hubOk('api-resources', '--api-group=example.org', '--no-headers'), '');
    const gone = await hub('get', 'gizmos', '-n', 'kc-crd');
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, 'error: the server doesn\'t have a resource type "gizmos"\n');
  });

  it('refuses a wrong token, and kubectl tells the user to log in', async () => {
    const kubeconfig = join(t.dir, 'wrong-token.kubeconfig');
    await writeFile(kubeconfig, t.server.kubeconfig('not-the-admin-token', ['hub']), { mode: 0o600 });
    const stranger = new Kubectl(kubeconfig, join(t.dir, 'wrong-token-cache'), t.dir);
    const refused = await stranger.run(['--context', 'hub', 'get', 'ns']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^error: You must be logged in to the server \(the server has asked for the client to provide credentials\)$/m,
    );
    assert.equal(refused.stdout, '');
  });

  it('serves the root plane at the server root, apart from the hub plane', async () => {
    const root = (...args: string[]) => t.kubectl.run(['--context', 'root', ...args]);
    assert.equal((await root('create', 'namespace', 'kc-root')).stdout, 'namespace/kc-root created\n');
    assert.deepEqual(cellsOf((await root('get', 'ns', 'kc-root')).stdout, 'NAME', 'STATUS'), [
      ['kc-root', 'Active'],
    ]);
    const onHub = await hub('get', 'ns', 'kc-root');
    assert.equal(onHub.stderr, 'Error from server (NotFound): namespaces "kc-root" not found\n');
    const widgets = await root('get', 'widgets');
    assert.equal(widgets.code, 1);
    assert.equal(widgets.stderr, 'error: the server doesn\'t have a resource type "widgets"\n');
  });
});
