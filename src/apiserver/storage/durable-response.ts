/**
 * Durable responses: with group commit (revision-log.ts), a write is in memory before it is on
 * disk, so nothing a client receives may leave the process before the writes it could reflect
 * are stored. `holdUntilDurable` makes a response wait: each `write` and `end` goes out at once
 * when the log has nothing unflushed and no earlier chunk of this response is held, and
 * otherwise is held, in order, until the log says everything written so far is durable.
 *
 * Guarantees: a response (an acknowledgement, a read, a watch event or bookmark) never carries
 * a write the backend has not stored; chunks of one response keep their order; when the
 * backend refuses the batch a held response is destroyed instead (the client sees the
 * connection fail, never an acknowledgement of an undone write).
 * Caveat: headers are not held (`writeHead` sends nothing by itself; a watch flushes its 200
 * headers, which say nothing about any write).
 */
import type { ServerReply } from '../http/exchange.ts';
import type { RevisionLog } from './revision-log.ts';

type Chunk = () => void;

export function holdUntilDurable(res: ServerReply, log: RevisionLog): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => unknown;
  let held: Chunk[] = [];
  let waiting = false;

  const release = (durable: boolean): void => {
    waiting = false;
    const chunks = held;
    held = [];
    if (!durable) {
      res.destroy();
      return;
    }
    for (const chunk of chunks) chunk();
  };
  const pass = (chunk: Chunk): boolean => {
    if (!waiting && !log.hasUnflushed) {
      chunk();
      return false;
    }
    held.push(chunk);
    if (!waiting) {
      waiting = true;
      log.whenDurable(release);
    }
    return true;
  };

  res.write = (...args: unknown[]) => {
    let result = true;
    if (!pass(() => (result = write(...args)))) return result;
    return true;
  };
  res.end = (...args: unknown[]) => {
    pass(() => end(...args));
    return res;
  };
}
