import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from './line-splitter.ts';

function split(chunks: (Buffer | string)[], end = true): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  for (const chunk of chunks) splitter.push(chunk);
  if (end) splitter.end();
  return lines;
}

describe('line splitter', () => {
  it('hands on each line as its newline arrives, in order, without the newline', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push('{"a":1}\n{"b"');
    assert.deepEqual(lines, ['{"a":1}']);
    splitter.push(':2}\r\n\n{"c":3}\n');
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}\r', '', '{"c":3}']);
  });

  it('decodes a character split between two chunks whole', () => {
    const text = Buffer.from('{"name":"grüße"}\n');
    const cut = text.indexOf(Buffer.from('ü')) + 1;
    assert.deepEqual(split([text.subarray(0, cut), text.subarray(cut)]), ['{"name":"grüße"}']);
  });

  it('hands on a last line without a newline at the end, and nothing for an empty rest', () => {
    assert.deepEqual(split(['{"a":1}\n{"b":2}'], false), ['{"a":1}']);
    assert.deepEqual(split(['{"a":1}\n{"b":2}']), ['{"a":1}', '{"b":2}']);
    assert.deepEqual(split(['{"a":1}\n']), ['{"a":1}']);
    assert.deepEqual(split([]), []);
  });
});
