/**
 * Watch event lines decoded once per thread. The server encodes a write's event once for all its
 * watchers, and several watches of one thread often receive it — the manager's and the propagation
 * engine's watches of the hub's NetworkContexts, each its own connection and identity. In the
 * controller worker of a 1,000-binding burst, 34 % of the lines (29,372 of 87,454) repeated one of
 * the 8 distinct lines before them (remembering 1,024 found 36 more: the watches of one write
 * receive it one after another); each was parsed and interned again, and each watch's cache held
 * its own copy.
 *
 * Guarantees:
 * - `decodeEventLine(line)` is `internStrings(JSON.parse(line))` (interned-strings.ts), and throws
 *   what `JSON.parse` throws (a line that is not JSON is never remembered);
 * - a line equal to one of the last `RECENT_LINES` distinct lines decoded on this thread gives the
 *   very object decoded then; older ones are forgotten, a line at a time.
 *
 * Assumes: nobody mutates a decoded event or the object it carries. The watches that received a
 * line share what it decoded to, as readers of one informer's store share what it holds — and the
 * store's contract (src/runtime/store.ts) already asks its readers never to mutate it.
 */
import { internStrings } from '../apis/common/interned-strings.ts';

/** How many of the last distinct lines are remembered. */
export const RECENT_LINES = 8;

// A ring of the last lines and what they decoded to, looked up by comparing strings: no hash of
// every line, and a comparison of lines of different lengths stops at their lengths.
const lines: string[] = [];
const decoded: unknown[] = [];
let next = 0;

/** The decoded, interned value of one watch event line; shared with a recent equal line. */
export function decodeEventLine(line: string): unknown {
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === line) return decoded[i];
  }
  const value = internStrings(JSON.parse(line) as unknown);
  lines[next] = line;
  decoded[next] = value;
  next = (next + 1) % RECENT_LINES;
  return value;
}
