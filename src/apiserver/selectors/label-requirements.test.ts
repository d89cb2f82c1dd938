import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import {
  isEmptySelector,
  matchesLabels,
  parseLabelSelector,
  selectorFromObject,
  type LabelRequirement,
} from './label-requirements.ts';

function requirements(text: string): LabelRequirement[] {
  return parseLabelSelector(text).requirements;
}

function rejects(text: string, message: string): void {
  assert.throws(
    () => parseLabelSelector(text),
    (err: unknown) =>
      err instanceof ApiError && err.code === 400 && err.reason === 'BadRequest' && err.message === message,
    text,
  );
}

function matches(text: string, labels: Record<string, string> | undefined): boolean {
  return matchesLabels(parseLabelSelector(text), labels);
}

describe('parseLabelSelector', () => {
  it('reads equality requirements with =, == and !=', () => {
    assert.deepEqual(requirements('app=shop,tier==web,env!=prod'), [
      { key: 'app', operator: 'Equals', values: ['shop'] },
      { key: 'tier', operator: 'Equals', values: ['web'] },
      { key: 'env', operator: 'NotEquals', values: ['prod'] },
    ]);
  });

  it('reads set requirements, existence and non-existence, tolerating whitespace', () => {
    assert.deepEqual(requirements(' tier in ( web , api ) , env notin (prod), canary, !legacy '), [
      { key: 'tier', operator: 'In', values: ['api', 'web'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'canary', operator: 'Exists', values: [] },
      { key: 'legacy', operator: 'DoesNotExist', values: [] },
    ]);
  });

  it('treats empty slots in a value set and a missing exact value as the empty value', () => {
    assert.deepEqual(requirements('x in (foo,,baz),z notin (),y='), [
      { key: 'x', operator: 'In', values: ['', 'baz', 'foo'] },
      { key: 'z', operator: 'NotIn', values: [''] },
      { key: 'y', operator: 'Equals', values: [''] },
    ]);
  });

  it('reads in and notin as plain words outside the operator position', () => {
    assert.deepEqual(requirements('in in (in,notin)'), [
      { key: 'in', operator: 'In', values: ['in', 'notin'] },
    ]);
  });

  it('selects everything when absent or empty', () => {
    assert.deepEqual(requirements(''), []);
    assert.equal(isEmptySelector(parseLabelSelector(undefined)), true);
    assert.equal(isEmptySelector(parseLabelSelector('a')), false);
  });

  it('refuses an invalid key or value with the requirement error of apimachinery', () => {
    rejects(
      'app_=shop',
      `unable to parse requirement: <nil>: Invalid value: "app_": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    rejects(
      'app=shop_',
      `unable to parse requirement: values[0][app]: Invalid value: "shop_": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  });

  it('refuses malformed requirements with the parser messages of apimachinery', () => {
    rejects('app in shop', "unable to parse requirement: found 'shop' expected: '('");
    rejects('app in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'");
    rejects('app in (=', "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    rejects('app in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier");
    rejects('app=(', "unable to parse requirement: found '(', expected: identifier");
    rejects('app>1', "unable to parse requirement: found '>', expected: '=', '!=', '==', 'in', notin'");
    rejects('!', "unable to parse requirement: found '', expected: identifier");
  });

  it('refuses misplaced tokens between requirements without the requirement prefix', () => {
    rejects(')', "found ')', expected: !, identifier, or 'end of string'");
    rejects('app=shop tier', "found 'tier', expected: ',' or 'end of string'");
    rejects('!app=shop', "found '=', expected: ',' or 'end of string'");
    rejects('app=shop,', "found '', expected: identifier after ','");
  });
});

describe('matchesLabels', () => {
  const labels = { app: 'shop', tier: 'web' };

  it('requires every requirement to hold', () => {
    assert.equal(matches('app=shop,tier=web', labels), true);
    assert.equal(matches('app=shop,tier=api', labels), false);
  });

  it('matches != and notin also when the key is absent, but = and in only when present', () => {
    assert.equal(matches('env!=prod', labels), true);
    assert.equal(matches('env notin (prod)', labels), true);
    assert.equal(matches('app!=shop', labels), false);
    assert.equal(matches('env=prod', labels), false);
    assert.equal(matches('env in (prod)', labels), false);
    assert.equal(matches('tier in (api,web)', labels), true);
  });

  it('checks existence and non-existence', () => {
    assert.equal(matches('app,!env', labels), true);
    assert.equal(matches('env', labels), false);
    assert.equal(matches('!app', labels), false);
  });

  it('treats missing labels as none and the empty selector as matching anything', () => {
    assert.equal(matches('', undefined), true);
    assert.equal(matches('!app', undefined), true);
    assert.equal(matches('app', undefined), false);
  });
});

describe('selectorFromObject', () => {
  it('selects nothing for an absent selector and everything for an empty one', () => {
    assert.equal(matchesLabels(selectorFromObject(undefined), {}), false);
    assert.equal(matchesLabels(selectorFromObject(null), { app: 'shop' }), false);
    assert.equal(isEmptySelector(selectorFromObject(undefined)), false);
    assert.equal(matchesLabels(selectorFromObject({}), { app: 'shop' }), true);
    assert.equal(isEmptySelector(selectorFromObject({ matchLabels: {}, matchExpressions: [] })), true);
  });

  it('ANDs matchLabels with matchExpressions', () => {
    const selector = selectorFromObject({
      matchLabels: { app: 'shop' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['web', 'api'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(matchesLabels(selector, { app: 'shop', tier: 'api' }), true);
    assert.equal(matchesLabels(selector, { app: 'shop', tier: 'api', legacy: 'yes' }), false);
    assert.equal(matchesLabels(selector, { app: 'cart', tier: 'api' }), false);
  });

  it('refuses unknown operators and invalid requirements as apimachinery words them', () => {
    assert.throws(
      () => selectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }),
      { message: '"Equals" is not a valid label selector operator' },
    );
    assert.throws(
      () => selectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      {
        message:
          "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
      },
    );
    assert.throws(
      () => selectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] }),
      {
        message:
          'values: Invalid value: []string{"b"}: values set must be empty for exists and does not exist',
      },
    );
    assert.throws(() => selectorFromObject({ matchLabels: { a_: 'b' } }), {
      message: /^key: Invalid value: "a_": name part must/,
    });
  });
});
