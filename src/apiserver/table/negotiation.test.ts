import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { negotiate } from './negotiation.ts';

const KUBECTL_GET =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const CLIENT_NODE = 'application/json, */*;q=0.8';
const TYPED_CLIENT = 'application/vnd.kubernetes.protobuf,application/json';

const withTables = { tableAvailable: true };
const withoutTables = { tableAvailable: false };

function isNotAcceptable(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.code === 406 &&
    err.reason === 'NotAcceptable' &&
    err.message ===
      'only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf'
  );
}

describe('negotiate', () => {
  it("gives kubectl get's Accept a Table, or JSON when the resource has no table", () => {
    assert.equal(negotiate(KUBECTL_GET, withTables), 'table');
    assert.equal(negotiate(KUBECTL_GET, withoutTables), 'json');
  });

  it('gives a Table for the v1beta1 form alone', () => {
    assert.equal(negotiate('application/json;as=Table;v=v1beta1;g=meta.k8s.io', withTables), 'table');
  });

  it("gives client-node's Accept, a bare */* and a missing header JSON", () => {
    assert.equal(negotiate(CLIENT_NODE, withTables), 'json');
    assert.equal(negotiate('*/*', withTables), 'json');
    assert.equal(negotiate('application/*', withTables), 'json');
    assert.equal(negotiate(undefined, withTables), 'json');
    assert.equal(negotiate('', withTables), 'json');
  });

  it('answers JSON when protobuf is listed first or alone, and never a protobuf Table', () => {
    assert.equal(negotiate(TYPED_CLIENT, withTables), 'json');
    assert.equal(negotiate('application/vnd.kubernetes.protobuf', withTables), 'json');
    assert.equal(
      negotiate(
        'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json',
        withTables,
      ),
      'json',
    );
  });

  it('reads parameters of each media range, not substrings of the header', () => {
    assert.equal(
      negotiate('application/json;as=Table;v=v2;g=meta.k8s.io,application/json', withTables),
      'json',
    );
    assert.equal(
      negotiate('application/json;as=Table;v=v1;g=example.com,application/json', withTables),
      'json',
    );
    assert.equal(
      negotiate('application/json;as=Tables;v=v1;g=meta.k8s.io,application/json', withTables),
      'json',
    );
    assert.equal(negotiate('application/json ; as=Table ; g=meta.k8s.io ; v=v1', withTables), 'table');
  });

  it('prefers a higher q over the order written', () => {
    assert.equal(
      negotiate('application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io', withTables),
      'table',
    );
  });

  it('answers PartialObjectMetadata and PartialObjectMetadataList requests in meta.k8s.io/v1', () => {
    assert.equal(
      negotiate(
        'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
        withTables,
      ),
      'partial-metadata',
    );
    assert.equal(
      negotiate(
        'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
        withoutTables,
      ),
      'partial-metadata',
    );
  });

  it('refuses with 406 when nothing listed can be answered', () => {
    assert.throws(() => negotiate('application/yaml', withTables), isNotAcceptable);
    assert.throws(() => negotiate('text/html, application/cbor', withTables), isNotAcceptable);
    assert.throws(
      () => negotiate('application/json;as=Table;v=v1;g=meta.k8s.io', withoutTables),
      isNotAcceptable,
    );
    assert.throws(
      () => negotiate('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta2', withTables),
      isNotAcceptable,
    );
  });

  it('answers a header again as it did the first time, with and without tables, refusals included', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    for (let round = 0; round < 3; round++) {
      assert.equal(negotiate(kubectl, withTables), 'table');
      assert.equal(negotiate(kubectl, withoutTables), 'json');
      assert.throws(() => negotiate('application/yaml', withTables), isNotAcceptable);
    }
    for (let i = 0; i < 300; i++) assert.equal(negotiate(`application/json;x=${i}`, withTables), 'json');
    assert.equal(negotiate(kubectl, withTables), 'table');
  });
});
