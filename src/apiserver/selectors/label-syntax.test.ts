import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { labelKeyErrors, labelValueErrors } from './label-syntax.ts';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('label keys', () => {
  it('accept a name, and a name behind a DNS subdomain prefix', () => {
    assert.deepEqual(labelKeyErrors('app'), []);
    assert.deepEqual(labelKeyErrors('My_App.v1'), []);
    assert.deepEqual(labelKeyErrors('app.kubernetes.io/name'), []);
  });

  it('report a malformed or overlong name part in apimachinery words', () => {
    assert.deepEqual(labelKeyErrors('-app'), [NAME_PART]);
    assert.deepEqual(labelKeyErrors('a'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.deepEqual(labelKeyErrors('example.com/'), ['name part must be non-empty', NAME_PART]);
  });

  it('report an empty or non-subdomain prefix, and more than one slash', () => {
    assert.deepEqual(labelKeyErrors('/app'), ['prefix part must be non-empty']);
    assert.match(
      labelKeyErrors('Example.com/app')[0],
      /^prefix part a lowercase RFC 1123 subdomain must consist of/,
    );
    assert.match(
      labelKeyErrors('a/b/c')[0],
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/,
    );
  });
});

describe('label values', () => {
  it('accept the empty value and up to 63 alphanumerics, dashes, underscores and dots', () => {
    assert.deepEqual(labelValueErrors(''), []);
    assert.deepEqual(labelValueErrors('v1.2_rc-3'), []);
    assert.deepEqual(labelValueErrors('a'.repeat(63)), []);
  });

  it('report a value that is too long or does not start and end alphanumeric', () => {
    assert.deepEqual(labelValueErrors('a'.repeat(64)), ['must be no more than 63 characters']);
    assert.deepEqual(labelValueErrors('b_'), [
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
});

describe('label key checks, remembered', () => {
  it('answers a key the same the second time as the first, valid or not', () => {
    const key = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'Z', '9', '-', '.', '/', '_', ' ', 'é'), maxLength: 12 }),
      fc.constantFrom('app', 'example.com/app', 'a/b/c', '/x', 'x/', `${'a'.repeat(64)}`, 'b'.repeat(63)),
    );
    fc.assert(
      fc.property(key, (k) => {
        const first = labelKeyErrors(k);
        assert.deepEqual(labelKeyErrors(k), first);
        assert.deepEqual(labelKeyErrors(k), first);
      }),
      { numRuns: 2000, seed: 14 },
    );
    assert.notDeepEqual(labelKeyErrors('a/b/c'), []);
    assert.notDeepEqual(labelKeyErrors('a/b/c'), []);
  });
});
