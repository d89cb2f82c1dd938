/**
 * What the presence controller writes on NetworkBindings: the labels it stamps and the outcome
 * it reports (controllers.md §5, "Stamp labels", "Stamp UID", "Report").
 *
 * Guarantees:
 * - a stamp is one merge patch of only the labels that are missing or different, and none when
 *   every binding already carries them; other labels are never touched;
 * - a report sets `Ready` as conditions.ts does (time moves only with status), with
 *   `observedGeneration` = the binding's generation, and sets `status.networkContextRef` only
 *   when it is unset and a ref is given — a ref, once set, survives every regression; the
 *   status subresource is written only when something changed;
 * - a report is guarded by the resourceVersion of the copy it was computed from: computed from a
 *   copy older than the server's (the store lagging this controller's own previous report), it
 *   is refused (409) and dropped, so it never rewrites `Ready` with a newer lastTransitionTime.
 *   The binding's newer version is on its way to the store, and its event re-queues the
 *   binding's key (presence watches every binding change), whose reconcile reports from it;
 * - a writer with `lastWritten` reports from its own last write of a binding while the store's
 *   copy is older than it (resourceVersion), instead of from the store: a report following its
 *   own previous one closely (not Ready, then Ready, on every new binding) is written at once,
 *   not refused and redone after that write's event. Someone else's write since is still a
 *   409, dropped as above. An entry is dropped once the store has caught up with it;
 * - every binding is attempted; the errors are collected and thrown together.
 * Both return the bindings as last written (or as given), so a later write in the same
 * reconcile starts from what the server holds.
 */
import type { ConditionStatus } from '../../apis/common/condition.ts';
import type { NetworkContextRef } from '../../apis/common/refs.ts';
import {
  NetworkBindingConditionType,
  type NetworkBinding,
} from '../../apis/networking/v1alpha/network-binding.ts';
import { isConflict } from '../../client/errors.ts';
import type { ResourceClient } from '../../client/types.ts';
import { setCondition } from '../../runtime/conditions.ts';
import { changedLabels } from '../../runtime/writes.ts';

export interface BindingOutcome {
  status: ConditionStatus;
  reason: string;
  message: string;
  ref?: NetworkContextRef;
}

export interface BindingWriter {
  client: ResourceClient<NetworkBinding>;
  now(): number;
  /** Told of each binding this report turned `Ready=True`, once written. */
  turnedReady?(binding: NetworkBinding, nowMs: number): void;
  /** This writer's last write of each binding (`namespace/name`) the store has not caught up with. */
  lastWritten?: Map<string, NetworkBinding>;
}

/** Past this many entries `lastWritten` starts over (bindings deleted before the store caught up). */
const LAST_WRITTEN_BOUND = 10_000;

const keyOf = (binding: NetworkBinding) => `${binding.metadata.namespace}/${binding.metadata.name}`;

/** The newer of the store's copy and this writer's last write of it, by resourceVersion. */
function newest(binding: NetworkBinding, writer: BindingWriter): NetworkBinding {
  const mine = writer.lastWritten?.get(keyOf(binding));
  if (!mine) return binding;
  const held = Number(binding.metadata.resourceVersion);
  const written = Number(mine.metadata.resourceVersion);
  if (Number.isInteger(held) && Number.isInteger(written) && written > held) return mine;
  writer.lastWritten!.delete(keyOf(binding));
  return binding;
}

function remember(written: NetworkBinding, writer: BindingWriter): NetworkBinding {
  if (!writer.lastWritten) return written;
  if (writer.lastWritten.size >= LAST_WRITTEN_BOUND) writer.lastWritten.clear();
  writer.lastWritten.set(keyOf(written), written);
  return written;
}

/** Merge-patches `labels` onto every binding lacking one of them. */
export async function stampLabels(
  bindings: NetworkBinding[],
  labels: Record<string, string>,
  writer: BindingWriter,
): Promise<NetworkBinding[]> {
  return settleAll(bindings, async (binding) => {
    const missing = changedLabels(binding, labels);
    if (!missing) return binding;
    return remember(
      await writer.client.patchMerge(binding.metadata.name!, binding.metadata.namespace, {
        metadata: { labels: missing },
      }),
      writer,
    );
  });
}

/** Reports `outcome` on every binding. */
export async function report(
  bindings: NetworkBinding[],
  outcome: BindingOutcome,
  writer: BindingWriter,
): Promise<NetworkBinding[]> {
  return settleAll(bindings, async (given) => {
    const binding = newest(given, writer);
    const status = binding.status ?? {};
    const conditions = setCondition(
      status.conditions,
      {
        type: NetworkBindingConditionType.Ready,
        status: outcome.status,
        reason: outcome.reason,
        message: outcome.message,
      },
      binding.metadata.generation,
      writer.now(),
    );
    const setsRef = status.networkContextRef === undefined && outcome.ref !== undefined;
    if (conditions === status.conditions && !setsRef) return binding;
    let written: NetworkBinding;
    try {
      written = await writer.client.patchMerge(
        binding.metadata.name!,
        binding.metadata.namespace,
        {
          metadata: { resourceVersion: binding.metadata.resourceVersion },
          status: { conditions, ...(setsRef && { networkContextRef: outcome.ref }) },
        },
        { subresource: 'status' },
      );
    } catch (err) {
      writer.lastWritten?.delete(keyOf(binding));
      if (isConflict(err)) return binding;
      throw err;
    }
    remember(written, writer);
    const wasReady = status.conditions?.some(
      (c) => c.type === NetworkBindingConditionType.Ready && c.status === 'True',
    );
    if (outcome.status === 'True' && !wasReady) writer.turnedReady?.(written, writer.now());
    return written;
  });
}

/** Runs `write` on each binding; throws every failure together once all have settled. */
async function settleAll(
  bindings: NetworkBinding[],
  write: (binding: NetworkBinding) => Promise<NetworkBinding>,
): Promise<NetworkBinding[]> {
  const results = await Promise.allSettled(bindings.map(write));
  const failures = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1)
    throw new AggregateError(failures, `${failures.length} bindings could not be written`);
  return results.map((result) => (result as PromiseFulfilledResult<NetworkBinding>).value);
}
