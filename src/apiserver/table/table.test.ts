import assert from 'node:assert/strict';
import type { KubeObject } from '../objects.ts';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import {
  ageColumn,
  buildTable,
  builtinColumns,
  CREATION_TIMESTAMP_DESCRIPTION,
  customResourceColumns,
  defaultColumns,
  NAME_DESCRIPTION,
  nameColumn,
  parseIncludeObject,
  printerColumn,
} from './table.ts';

const now = new Date('2025-01-01T01:00:00Z');
const created = '2025-01-01T00:00:00Z';

const widget = {
  apiVersion: 'conformance.example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'ns1', creationTimestamp: created, resourceVersion: '7' },
  spec: {
    color: 'blue',
    replicas: 3,
    ratio: 0.5,
    paused: false,
    selector: { b: 1, a: '<x>' },
    tags: ['x', 'y'],
  },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-12-31T23:00:00Z' }] },
};

function cell(column: { name?: string; type: string; jsonPath: string }, object: object = widget): unknown {
  return printerColumn({ name: column.name ?? 'X', ...column }).cell(object as KubeObject, now);
}

describe('CRD printer columns', () => {
  it('prints Name plus exactly the declared columns, keeping format and priority, with no automatic Age', () => {
    const columns = customResourceColumns([
      { name: 'Color', type: 'string', jsonPath: '.spec.color', description: 'The color' },
      { name: 'Replicas', type: 'integer', format: 'int32', priority: 1, jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    ]);
    const table = buildTable(columns, [widget], { resourceVersion: '9', now });
    assert.deepEqual(table.columnDefinitions, [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      { name: 'Color', type: 'string', format: '', description: 'The color', priority: 0 },
      {
        name: 'Replicas',
        type: 'integer',
        format: 'int32',
        description: 'Custom resource definition column (in JSONPath format): .spec.replicas',
        priority: 1,
      },
      {
        name: 'Ready',
        type: 'string',
        format: '',
        description:
          'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status',
        priority: 0,
      },
    ]);
    assert.deepEqual(table.rows[0].cells, ['w1', 'blue', 3, 'True']);
  });

  it('prints Name and a date-typed Age over .metadata.creationTimestamp when a version declares none', () => {
    for (const declared of [undefined, []]) {
      const columns = customResourceColumns(declared);
      assert.deepEqual(columns, [nameColumn, ageColumn]);
      assert.deepEqual(columns[1].definition, {
        name: 'Age',
        type: 'date',
        format: '',
        description: CREATION_TIMESTAMP_DESCRIPTION,
        priority: 0,
      });
      assert.deepEqual(buildTable(columns, [widget], { resourceVersion: '9', now }).rows[0].cells, [
        'w1',
        '60m',
      ]);
    }
  });

  it('compiles a list of columns once for every version that declares the same one, in any plane', () => {
    const declared = () => [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    ];
    const first = customResourceColumns(declared());
    assert.equal(
      customResourceColumns(declared()),
      first,
      'a copy of the same columns shares the compiled list',
    );
    const other = customResourceColumns([
      ...declared().slice(0, 1),
      { name: 'Replicas', type: 'integer', jsonPath: '.status.replicas' },
    ]);
    assert.notEqual(other, first);
    const widgetWithStatus = { ...widget, status: { ...(widget.status as object), replicas: 5 } };
    assert.deepEqual(buildTable(other, [widgetWithStatus], { resourceVersion: '9', now }).rows[0].cells, [
      'w1',
      'blue',
      5,
    ]);
    assert.deepEqual(buildTable(first, [widgetWithStatus], { resourceVersion: '9', now }).rows[0].cells, [
      'w1',
      'blue',
      3,
    ]);
  });

  it('refuses a column whose JSONPath does not parse', () => {
    assert.throws(
      () => customResourceColumns([{ name: 'Bad', type: 'string', jsonPath: '.spec[' }]),
      /invalid JSONPath/,
    );
  });
});

describe('printer column cells', () => {
  it('prints strings as they are, numbers and booleans as text, objects and arrays as Go-style JSON', () => {
    assert.equal(cell({ type: 'string', jsonPath: '.spec.color' }), 'blue');
    assert.equal(cell({ type: 'string', jsonPath: '.spec.replicas' }), '3');
    assert.equal(cell({ type: 'string', jsonPath: '.spec.paused' }), 'false');
    assert.equal(cell({ type: 'string', jsonPath: '.spec.selector' }), '{"a":"\\u003cx\\u003e","b":1}');
    assert.equal(cell({ type: 'string', jsonPath: '.spec.tags' }), '["x","y"]');
  });

  it('uses the first match only', () => {
    assert.equal(cell({ type: 'string', jsonPath: '.spec.tags[*]' }), 'x');
  });

  it('gives integer, number and boolean columns the typed value only when the JSON type matches', () => {
    assert.equal(cell({ type: 'integer', jsonPath: '.spec.replicas' }), 3);
    assert.equal(cell({ type: 'integer', jsonPath: '.spec.ratio' }), 0);
    assert.equal(cell({ type: 'integer', jsonPath: '.spec.color' }), null);
    assert.equal(cell({ type: 'number', jsonPath: '.spec.ratio' }), 0.5);
    assert.equal(cell({ type: 'number', jsonPath: '.spec.paused' }), null);
    assert.equal(cell({ type: 'boolean', jsonPath: '.spec.paused' }), false);
    assert.equal(cell({ type: 'boolean', jsonPath: '.spec.color' }), null);
  });

  it('prints a date as the age relative to now, <invalid> when unparsable and <unknown> when zero', () => {
    assert.equal(cell({ type: 'date', jsonPath: '.status.conditions[0].lastTransitionTime' }), '120m');
    assert.equal(
      cell({ type: 'date', jsonPath: '.spec.when' }, { spec: { when: 'yesterday' } }),
      '<invalid>',
    );
    assert.equal(
      cell({ type: 'date', jsonPath: '.spec.when' }, { spec: { when: '2025-02-30T00:00:00Z' } }),
      '<invalid>',
    );
    assert.equal(
      cell({ type: 'date', jsonPath: '.spec.when' }, { spec: { when: '0001-01-01T00:00:00Z' } }),
      '<unknown>',
    );
    assert.equal(cell({ type: 'date', jsonPath: '.spec.when' }, { spec: { when: '' } }), '<unknown>');
    assert.equal(
      cell({ type: 'date', jsonPath: '.spec.when' }, { spec: { when: '2025-01-01T02:30:00+02:00' } }),
      '30m',
    );
    assert.equal(cell({ type: 'date', jsonPath: '.spec.replicas' }), null);
  });

  it('leaves the cell null when nothing matches, the value is null, or the type is unknown', () => {
    for (const type of ['string', 'integer', 'number', 'boolean', 'date']) {
      assert.equal(cell({ type, jsonPath: '.spec.missing' }), null);
      assert.equal(cell({ type, jsonPath: '.spec.gone' }, { spec: { gone: null } }), null);
    }
    assert.equal(cell({ type: 'duration', jsonPath: '.spec.color' }), null);
  });
});

describe('built-in columns', () => {
  const meta = (name: string) => ({ name, creationTimestamp: created });

  it('prints a Namespace as Name, Status, Age', () => {
    const table = buildTable(
      builtinColumns.Namespace,
      [{ metadata: meta('demo'), status: { phase: 'Active' } }],
      {
        resourceVersion: '1',
        now,
      },
    );
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Status', 'Age'],
    );
    assert.deepEqual(table.rows[0].cells, ['demo', 'Active', '60m']);
  });

  it('prints a Lease as Name, Holder, Age, with an empty holder when none holds it', () => {
    const leases = [
      { metadata: meta('lock'), spec: { holderIdentity: 'node-a' } },
      { metadata: meta('free'), spec: {} },
    ];
    const table = buildTable(builtinColumns.Lease, leases, { resourceVersion: '1', now });
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Holder', 'Age'],
    );
    assert.deepEqual(
      table.rows.map((r) => r.cells),
      [
        ['lock', 'node-a', '60m'],
        ['free', '', '60m'],
      ],
    );
  });

  it('prints a CRD as Name and a date-typed Created At in RFC 3339', () => {
    const crd = {
      metadata: { name: 'widgets.conformance.example.com', creationTimestamp: '2025-01-01T00:00:00.250Z' },
    };
    const table = buildTable(builtinColumns.CustomResourceDefinition, [crd], { resourceVersion: '1', now });
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Created At', 'date'],
      ],
    );
    assert.deepEqual(table.rows[0].cells, ['widgets.conformance.example.com', '2025-01-01T00:00:00Z']);
  });

  it('counts data and binaryData keys of a ConfigMap', () => {
    const cm = { metadata: meta('settings'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } };
    const table = buildTable(builtinColumns.ConfigMap, [cm, { metadata: meta('empty') }], {
      resourceVersion: '1',
      now,
    });
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Data', 'Age'],
    );
    assert.deepEqual(
      table.rows.map((r) => r.cells),
      [
        ['settings', 3, '60m'],
        ['empty', 0, '60m'],
      ],
    );
  });

  it('prints a Secret as Name, Type, Data, Age', () => {
    const secret = { metadata: meta('creds'), type: 'Opaque', data: { user: 'YQ==', pass: 'Yg==' } };
    const table = buildTable(builtinColumns.Secret, [secret], { resourceVersion: '1', now });
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Type', 'Data', 'Age'],
    );
    assert.deepEqual(table.rows[0].cells, ['creds', 'Opaque', 2, '60m']);
  });

  it('prints an Event as the event printer does, the same from its core and events.k8s.io versions', () => {
    const coreEvent = {
      metadata: meta('w1.painted'),
      type: 'Normal',
      reason: 'Painted',
      message: ' widget w1 is red\n',
      involvedObject: { kind: 'Widget', name: 'w1', fieldPath: 'spec.color' },
      reportingComponent: 'painter',
      reportingInstance: 'painter-0',
      eventTime: '2025-01-01T00:57:59.876543Z',
    };
    const eventsEvent = {
      metadata: meta('w1.painted'),
      type: 'Normal',
      reason: 'Painted',
      note: ' widget w1 is red\n',
      regarding: { kind: 'Widget', name: 'w1', fieldPath: 'spec.color' },
      reportingController: 'painter',
      reportingInstance: 'painter-0',
      eventTime: '2025-01-01T00:57:59.876543Z',
    };
    const table = buildTable(builtinColumns.Event, [coreEvent, eventsEvent], { resourceVersion: '1', now });
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.priority]),
      [
        ['Last Seen', 0],
        ['Type', 0],
        ['Reason', 0],
        ['Object', 0],
        ['Subobject', 1],
        ['Source', 1],
        ['Message', 0],
        ['First Seen', 1],
        ['Count', 1],
        ['Name', 1],
      ],
    );
    const cells = ['2m', 'Normal', 'Painted', 'widget/w1', 'spec.color', 'painter, painter-0'];
    const expected = [...cells, 'widget w1 is red', '2m', 1, 'w1.painted'];
    assert.deepEqual(table.rows[0].cells, expected);
    assert.deepEqual(table.rows[1].cells, expected);
  });

  it('prints an Event seen again as of its last occurrence, and one never timed as <unknown>', () => {
    const seenTwice = {
      metadata: meta('a'),
      involvedObject: { kind: 'Namespace' },
      firstTimestamp: '2025-01-01T00:00:00Z',
      lastTimestamp: '2025-01-01T00:59:30Z',
      count: 2,
    };
    const series = {
      metadata: meta('b'),
      regarding: { kind: 'Widget', name: 'w2' },
      eventTime: '2025-01-01T00:00:00Z',
      series: { count: 5, lastObservedTime: '2025-01-01T00:59:00Z' },
    };
    const untimed = { metadata: meta('c'), source: { component: 'kubelet', host: 'node-1' } };
    const table = buildTable(builtinColumns.Event, [seenTwice, series, untimed], {
      resourceVersion: '1',
      now,
    });
    const pick = (cells: unknown[]) => [cells[0], cells[3], cells[5], cells[7], cells[8]];
    assert.deepEqual(
      table.rows.map((r) => pick(r.cells)),
      [
        ['30s', 'namespace', '', '60m', 2],
        ['60s', 'widget/w2', '', '60m', 5],
        ['<unknown>', '', 'kubelet, node-1', '<unknown>', 1],
      ],
    );
  });

  it('prints every other kind as Name and Age', () => {
    assert.deepEqual(defaultColumns, [nameColumn, ageColumn]);
    const table = buildTable(defaultColumns, [{ metadata: meta('reader') }], { resourceVersion: '1', now });
    assert.deepEqual(table.rows[0].cells, ['reader', '60m']);
  });
});

describe('buildTable', () => {
  it('carries the resourceVersion and continue token, and PartialObjectMetadata rows by default', () => {
    const table = buildTable(defaultColumns, [widget], { resourceVersion: '42', continue: 'abc', now });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '42', continue: 'abc' });
    assert.deepEqual(table.rows[0].object, {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: widget.metadata,
    });
  });

  it('includes the whole object for Object and no object for None', () => {
    const full = buildTable(defaultColumns, [widget], { includeObject: 'Object', resourceVersion: '1', now });
    assert.equal(full.rows[0].object, widget);
    const bare = buildTable(defaultColumns, [widget], { includeObject: 'None', resourceVersion: '1', now });
    assert.equal('object' in bare.rows[0], false);
    assert.deepEqual(bare.metadata, { resourceVersion: '1' });
  });

  it('leaves out the column definitions for watch events after the first, keeping the cells', () => {
    const table = buildTable(defaultColumns, [widget], {
      resourceVersion: '1',
      now,
      omitColumnDefinitions: true,
    });
    assert.deepEqual(table.columnDefinitions, []);
    assert.deepEqual(table.rows[0].cells, ['w1', '60m']);
  });

  it('has an empty rows list for no objects', () => {
    assert.deepEqual(buildTable(defaultColumns, [], { resourceVersion: '3', now }).rows, []);
  });
});

describe('parseIncludeObject', () => {
  it('defaults to Metadata and accepts None, Metadata and Object', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.equal(parseIncludeObject('Object'), 'Object');
  });

  it('refuses any other value with a 400 worded as the real server', () => {
    assert.throws(
      () => parseIncludeObject('object'),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 400 &&
        err.reason === 'BadRequest' &&
        err.message ===
          `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });
});
