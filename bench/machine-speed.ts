/**
 * How fast this machine is right now, by a fixed piece of work that does not depend on
 * netpresence's code: decode, change and encode one 2-KB object shaped like the fleet's
 * (a NetworkInterfaceClaim with its conditions), many times, on one thread.
 *
 * Why: these machines are VMs on shared hosts, and the guest sees no steal time. On an idle
 * machine this work takes about 9 µs a round trip most of the time and about 14 µs in stretches
 * of a second or so, some 30 % of the time (bench/README.md, session 29); the same code and the
 * same 1,000-binding burst used 13.6–14.0 s of fleet CPU at nine and 17.4–22.8 s an hour and a
 * half later, at the same load average. The sampler says what share of a run met the slow state, so
 * runs can be read against each other; a bench that compares code should still alternate trees.
 *
 * Guarantees: the work is the same in every tree (nothing here imports netpresence); a sample is
 * timed by the process's CPU time, so waiting for a core while the fleet is busy does not count
 * as slowness (a preemption inside the sample can still add to it); the sampler costs about two
 * milliseconds of one core every `SAMPLE_INTERVAL_MS` (0.4 %).
 */

/** Round trips per sample: about two milliseconds of one core. */
export const SAMPLE_ITERATIONS = 200;
/** How often the sampler takes a sample while a run goes on. */
export const SAMPLE_INTERVAL_MS = 500;
/** A sample this much slower than the run's fastest tenth counts as the machine's slow state. */
export const SLOW_FACTOR = 1.3;

const OBJECT_TEXT = JSON.stringify({
  apiVersion: 'networking.datumapis.com/v1alpha',
  kind: 'NetworkInterfaceClaim',
  metadata: {
    name: 'claim-0042',
    namespace: 'ns-8d3f0c2a-6b1e-4d59-9f7a-2c4e1b7d9a30',
    uid: '4f1c2e9a-7b3d-4c8e-a1f0-5d6b9e2c3a71',
    resourceVersion: '184467',
    generation: 1,
    creationTimestamp: '2026-12-07T10:42:04Z',
    labels: { 'networking.datumapis.com/network': 'network-7', 'app.kubernetes.io/name': 'bench' },
    finalizers: ['networking.datumapis.com/networkinterfaceclaim'],
  },
  spec: {
    networkRef: { name: 'network-7' },
    location: 'loc-3',
    families: ['IPv6', 'IPv4'],
  },
  status: {
    addresses: [
      { family: 'IPv6', address: '2001:db8:42:7::1a', prefixLength: 64, gateway: '2001:db8:42:7::1' },
      { family: 'IPv4', address: '10.42.7.26', prefixLength: 24, gateway: '10.42.7.1' },
    ],
    mtu: 1500,
    conditions: ['Bound', 'Prepared', 'Programmed', 'Ready'].map((type, i) => ({
      type,
      status: 'True',
      reason: `${type}Reason`,
      message: `The claim is ${type.toLowerCase()}: step ${i} of the data plane's work is done.`,
      observedGeneration: 1,
      lastTransitionTime: '2026-12-07T10:42:05Z',
    })),
  },
});

interface Condition {
  type: string;
  lastTransitionTime: string;
}

/** One round trip: decode, stamp every condition, encode. Returns the text's length. */
function roundTrip(i: number): number {
  const object = JSON.parse(OBJECT_TEXT) as { status: { conditions: Condition[] } };
  for (const condition of object.status.conditions) condition.lastTransitionTime = `t${i}`;
  return JSON.stringify(object).length;
}

/**
 * CPU microseconds per round trip over one sample, by the process's CPU time: a wait for a core
 * does not count; what the bench's other threads (V8's helpers) run meanwhile does, and is small.
 */
function sample(): number {
  const before = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < SAMPLE_ITERATIONS; i++) sink += roundTrip(i);
  const spent = process.cpuUsage(before);
  if (sink === 0) throw new Error('the machine-speed workload encoded nothing');
  return (spent.user + spent.system) / SAMPLE_ITERATIONS;
}

/** What the samples of one run say. */
export interface MachineSpeed {
  samples: number;
  /** Median CPU microseconds per round trip. */
  medianUs: number;
  /** The fastest tenth's bound: the machine's speed when nothing slows it. */
  fastUs: number;
  /** Share of samples at least `SLOW_FACTOR` times slower than `fastUs`. */
  slowShare: number;
}

/** Summarises samples (CPU µs per round trip), as `MachineSpeedSampler.stop` does. */
export function summarise(samples: number[]): MachineSpeed {
  if (samples.length === 0) return { samples: 0, medianUs: NaN, fastUs: NaN, slowShare: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const fastUs = sorted[Math.floor((sorted.length - 1) / 10)];
  const slow = sorted.filter((us) => us >= fastUs * SLOW_FACTOR).length;
  return {
    samples: sorted.length,
    medianUs: sorted[Math.floor((sorted.length - 1) / 2)],
    fastUs,
    slowShare: slow / sorted.length,
  };
}

/** Samples the machine's speed every `SAMPLE_INTERVAL_MS` from `start()` to `stop()`. */
export class MachineSpeedSampler {
  private readonly samples: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    // Compiled before the first sample counts.
    for (let i = 0; i < 20; i++) sample();
    this.timer = setInterval(() => this.samples.push(sample()), SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): MachineSpeed {
    clearInterval(this.timer);
    return summarise(this.samples);
  }
}

/** `machine speed during the run: …`, as bench/fleet prints it. */
export function machineSpeedLine(speed: MachineSpeed): string {
  if (speed.samples === 0)
    return `machine speed during the run: no sample (the run was shorter than ${SAMPLE_INTERVAL_MS} ms)`;
  return (
    `machine speed during the run: ${speed.medianUs.toFixed(1)} CPU µs per 2-KB decode and encode (median of ${speed.samples} sample${speed.samples === 1 ? '' : 's'}; ` +
    `fastest tenth ${speed.fastUs.toFixed(1)} µs; ${(speed.slowShare * 100).toFixed(0)} % of samples ${SLOW_FACTOR}× slower or more)`
  );
}
