import { median } from '../../../bench-support/index.js';

/** Timing of one operation: per-operation medians over batches, and operations per second. */
export interface Measurement {
  readonly name: string;
  /** Median CPU time per operation (this process's user + system time), in nanoseconds. */
  readonly medianCpuNanoseconds: number;
  /** Median wall-clock time per operation, in nanoseconds (inflated when other processes compete for the CPU). */
  readonly medianWallNanoseconds: number;
  /** 1e9 / median CPU time. */
  readonly opsPerSecond: number;
  readonly samples: number;
  readonly batch: number;
}

// Keeps results alive so the optimiser cannot drop the measured call.
let sink: unknown;

/**
 * Runs `operation` in batches (so the timers' own cost and resolution stay negligible) and takes the
 * median of the per-operation batch averages, after a warm-up so the JIT has compiled the measured code.
 * CPU time is the primary figure: on a shared machine it is what the operation itself costs, while
 * wall time also counts the time other processes held the CPU.
 */
export function measure(
  name: string,
  operation: () => unknown,
  options: { batch?: number; samples?: number } = {},
): Measurement {
  const batch = options.batch ?? 500;
  const samples = options.samples ?? 101;
  for (let index = 0; index < batch * 10; index += 1) sink = operation();
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const cpuStart = process.cpuUsage();
    const wallStart = process.hrtime.bigint();
    for (let index = 0; index < batch; index += 1) sink = operation();
    const wallElapsed = Number(process.hrtime.bigint() - wallStart);
    const cpuElapsed = process.cpuUsage(cpuStart);
    cpu.push(((cpuElapsed.user + cpuElapsed.system) * 1000) / batch);
    wall.push(wallElapsed / batch);
  }
  const medianCpu = median(cpu);
  return {
    name,
    medianCpuNanoseconds: medianCpu,
    medianWallNanoseconds: median(wall),
    opsPerSecond: 1e9 / medianCpu,
    samples,
    batch,
  };
}

/** The last value an operation produced (keeps the sink observable). */
export function lastResult(): unknown {
  return sink;
}
