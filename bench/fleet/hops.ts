/**
 * bench/fleet --sequential N --hops: where a sequential round's time goes, hop by hop.
 *
 * Watches every watchable resource of the planes a round crosses (the hub, the project plane and
 * the cell; Leases and Events left out, as they are not hops) from the bench process, and stamps
 * each event with its arrival. A round's events are those between its anchors (Network create,
 * binding create, claim create) and its end. Each event is labelled by plane, kind, event type,
 * the object's name with the round's name replaced by `<n>`, its finalizer count and its True
 * conditions; an object's later events with the same label get `#2`, `#3`, …. Only objects named
 * after the round are counted, and only labels seen in at least half the rounds are printed.
 *
 * Printed per label, in order of median offset, over the rounds it appeared in: the offset from
 * its anchor (p50/p99) and the gap from the event just before it in the round (p50/p99). A hop
 * that waits on a timer shows as a large gap; one that waits on CPU as gaps spread over the chain.
 *
 * Guarantees: observation only; it writes nothing. Its watches stream from the planes' HTTPS
 * listener, so they add a little CPU to the server, the same in every run compared.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { send } from '../../src/client/transport.ts';
import type { KubeObject, ResourceId, WatchHandle } from '../../src/client/types.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { percentile } from '../flags.ts';

const LEFT_OUT = new Set(['leases', 'events']);

interface Seen {
  at: number;
  label: string;
  /** The object's key (plane, kind, namespace, name), for the `#n` ordinal. */
  key: string;
  base: string;
}

interface Discovered {
  resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

/** Every watchable top-level resource of a plane, from its discovery documents. */
async function watchable(kubeConfig: KubeConfig): Promise<ResourceId[]> {
  const groups = (await send(kubeConfig, { method: 'GET', path: '/apis' })) as {
    groups: { name: string; preferredVersion: { version: string } }[];
  };
  const versions: { group: string; version: string; path: string }[] = [
    { group: '', version: 'v1', path: '/api/v1' },
    ...groups.groups.map((g) => ({
      group: g.name,
      version: g.preferredVersion.version,
      path: `/apis/${g.name}/${g.preferredVersion.version}`,
    })),
  ];
  const ids: ResourceId[] = [];
  for (const v of versions) {
    const list = (await send(kubeConfig, { method: 'GET', path: v.path })) as Discovered;
    for (const r of list.resources) {
      if (r.name.includes('/') || LEFT_OUT.has(r.name) || !r.verbs?.includes('watch')) continue;
      ids.push({
        group: v.group,
        version: v.version,
        kind: r.kind,
        plural: r.name,
        namespaced: r.namespaced,
      });
    }
  }
  return ids;
}

const trueConditions = (object: KubeObject): string =>
  ((object.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [])
    .filter((c) => c.status === 'True')
    .map((c) => c.type)
    .sort()
    .join(',');

/** The watches and the events they have seen, for one sequential run. */
export class HopRecorder {
  private readonly events: { at: number; plane: string; kind: string; type: string; object: KubeObject }[] =
    [];
  private readonly handles: WatchHandle[] = [];
  private readonly rounds: { name: string; anchors: [string, number][]; end: number }[] = [];

  /** Opens a watch on every watchable resource of each plane, from now on. */
  async start(planes: Record<string, KubeConfig>): Promise<void> {
    for (const [plane, kubeConfig] of Object.entries(planes)) {
      for (const id of await watchable(kubeConfig)) {
        const client = resourceClient(kubeConfig, id);
        const { resourceVersion } = await client.list({ limit: 1 });
        this.handles.push(
          await client.watch(
            { resourceVersion },
            (type, object) => {
              if (type === 'ERROR' || type === 'BOOKMARK') return;
              this.events.push({ at: performance.now(), plane, kind: id.kind, type, object });
            },
            () => {},
          ),
        );
      }
    }
  }

  /** Records a round: its name, its anchors (what was sent, when) and when it ended. */
  round(name: string, anchors: [string, number][], end: number): void {
    this.rounds.push({ name, anchors, end });
  }

  stop(): void {
    for (const handle of this.handles) handle.abort();
  }

  /** The per-hop table, one line per label, for rounds whose name starts with `prefix`. */
  report(prefix: string): string[] {
    const offsets = new Map<string, { anchor: string; offset: number[]; gap: number[] }>();
    for (const round of this.rounds.filter((r) => r.name.startsWith(prefix))) {
      const start = round.anchors[0][1];
      // The round's own objects: named after it (`seq-ipv6-1` but not `seq-ipv6-12`).
      const own = new RegExp(`(^|[^a-z0-9-])${round.name}($|[^0-9])`);
      const mine = this.events.filter(
        (e) => e.at >= start && e.at <= round.end && own.test(e.object.metadata.name ?? ''),
      );
      const labelled: Seen[] = mine.map((e) => {
        const name = (e.object.metadata.name ?? '').split(round.name).join('<n>');
        const base =
          `${e.plane} ${e.kind} ${name} ${e.type} f${e.object.metadata.finalizers?.length ?? 0}` +
          ` [${trueConditions(e.object)}]`;
        const key = `${e.plane}/${e.kind}/${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`;
        return { at: e.at, label: base, key, base };
      });
      const counts = new Map<string, number>();
      for (const s of labelled) {
        const n = (counts.get(s.key + s.base) ?? 0) + 1;
        counts.set(s.key + s.base, n);
        if (n > 1) s.label = `${s.base} #${n}`;
      }
      // Anchors take part in the chain as events of their own.
      const chain: Seen[] = [
        ...round.anchors.map(([what, at]) => ({ at, label: `> ${what} sent`, key: what, base: what })),
        ...labelled,
      ].sort((a, b) => a.at - b.at);
      const seenInRound = new Set<string>();
      for (let i = 0; i < chain.length; i++) {
        const s = chain[i];
        if (seenInRound.has(s.label)) continue;
        seenInRound.add(s.label);
        const anchor = [...round.anchors].reverse().find(([, at]) => at <= s.at)!;
        let entry = offsets.get(s.label);
        if (!entry) offsets.set(s.label, (entry = { anchor: anchor[0], offset: [], gap: [] }));
        entry.offset.push(s.at - anchor[1]);
        entry.gap.push(i === 0 ? 0 : s.at - chain[i - 1].at);
      }
    }
    const p = (values: number[], q: number) =>
      percentile(
        [...values].sort((a, b) => a - b),
        q,
      ).toFixed(1);
    const anchorOrder = (anchor: string) =>
      this.rounds[0]?.anchors.findIndex(([what]) => what === anchor) ?? 0;
    const median = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    const rounds = this.rounds.filter((r) => r.name.startsWith(prefix)).length;
    return [...offsets.entries()]
      .filter(([, e]) => e.offset.length * 2 >= rounds)
      .sort(
        ([, a], [, b]) =>
          anchorOrder(a.anchor) - anchorOrder(b.anchor) || median(a.offset) - median(b.offset),
      )
      .map(
        ([label, e]) =>
          `  ${e.anchor.padEnd(8)} +${p(e.offset, 50).padStart(6)} / ${p(e.offset, 99).padStart(6)} ms` +
          `  gap ${p(e.gap, 50).padStart(5)} / ${p(e.gap, 99).padStart(6)} ms  ×${String(e.offset.length).padStart(3)}  ${label}`,
      );
  }
}
