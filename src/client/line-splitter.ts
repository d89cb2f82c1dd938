/**
 * The lines of a stream of UTF-8 chunks (a watch: one JSON event per line), each handed on as soon
 * as its `\n` arrives — what node:readline did for the watch, without its per-line machinery.
 *
 * Guarantees: every line is handed on once, in order, without its `\n` (a `\r` before it stays:
 * for JSON it is whitespace); a character split between two chunks is decoded whole; a last line
 * without a newline is handed on by `end()`, an empty rest is not.
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let start = 0;
    // What was pending holds no newline: the search starts where the chunk does.
    for (
      let newline = text.indexOf('\n', this.pending.length);
      newline >= 0;
      newline = text.indexOf('\n', start)
    ) {
      this.onLine(text.slice(start, newline));
      start = newline + 1;
    }
    this.pending = text.slice(start);
  }

  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest !== '') this.onLine(rest);
  }
}
