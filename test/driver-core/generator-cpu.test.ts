import { describe, expect, it } from 'vitest';
import { GeneratorMonitor, type ProcessReadings } from '../../src/generator/health.ts';

/*
 * The generator's CPU gauge on scripted process readings: which CPU an interval is charged with is
 * exact, whatever the machine does meanwhile.
 */

/** Process readings a test moves by hand: CPU µs of every thread, and monotonic ms. */
class ScriptedProcess implements ProcessReadings {
  cpu = 0;
  ms = 0;
  cpuUs(): number {
    return this.cpu;
  }
  nowMs(): number {
    return this.ms;
  }
  /** `ms` of wall time pass while the process burns `cores` on average. */
  pass(ms: number, cores: number): void {
    this.ms += ms;
    this.cpu += ms * cores * 1000;
  }
}

function cpuGauge(monitor: GeneratorMonitor): number {
  const gauges: Record<string, number> = {};
  monitor.sampleGauges(gauges);
  return gauges['generatorCpu']!;
}

describe('generatorCpu: the last interval ends with the measured window', () => {
  it.each([
    { name: 'files written on four threads after the run', afterMs: 200, afterCores: 4 },
    { name: 'a long idle wait after the run', afterMs: 5_000, afterCores: 0 },
    { name: 'nothing after the run', afterMs: 0, afterCores: 0 },
  ])('$name: the last interval reads the window’s own CPU', ({ afterMs, afterCores }) => {
    const process = new ScriptedProcess();
    const monitor = new GeneratorMonitor(process);
    monitor.start();
    process.pass(1000, 0.5);
    expect(cpuGauge(monitor)).toBe(0.5);
    // The run ends 400 ms into its second interval, at 0.9 core; the interval is flushed later.
    process.pass(400, 0.9);
    monitor.stop();
    process.pass(afterMs, afterCores);
    expect(cpuGauge(monitor)).toBe(0.9);
    // The run-long figure covers the window too: (500 + 360) ms of CPU over 1400 ms.
    expect(monitor.snapshot().cpu).toBeCloseTo(860 / 1400, 12);
    monitor.stop();
  });

  it('a monitor started again measures its new window from the start', () => {
    const process = new ScriptedProcess();
    const monitor = new GeneratorMonitor(process);
    monitor.start();
    process.pass(100, 1);
    monitor.stop();
    process.pass(100, 3);
    monitor.start();
    process.pass(1000, 0.25);
    expect(cpuGauge(monitor)).toBe(0.25);
    monitor.stop();
  });
});
