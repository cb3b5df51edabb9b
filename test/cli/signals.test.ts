import { afterEach, describe, expect, it } from 'vitest';
import { catchInterruptions, type Interruption } from '../../src/cli/signals.ts';

/* The signal handling itself, with signals emitted in this process (listeners only: nothing is really sent). */

let interruption: Interruption | undefined;
afterEach(() => interruption?.dispose());

function caught(graceMs?: number) {
  const messages: string[] = [];
  const exits: number[] = [];
  interruption = catchInterruptions(
    (text) => messages.push(text),
    (code) => exits.push(code),
    graceMs,
  );
  return { interruption, messages, exits };
}

describe('catchInterruptions', () => {
  it('the first SIGINT aborts the signal and calls for 130; a second within the grace is ignored', () => {
    const { interruption, messages, exits } = caught();
    expect(interruption.exitCode).toBeUndefined();
    process.emit('SIGINT');
    expect(interruption.signal.aborted).toBe(true);
    expect(interruption.exitCode).toBe(130);
    process.emit('SIGINT');
    expect(exits).toEqual([]);
    expect(messages[1]).toBe('stampede: SIGINT ignored: still writing the results\n');
  });

  it('SIGTERM calls for 143, and keeps it when a SIGINT follows', () => {
    const { interruption } = caught();
    process.emit('SIGTERM');
    process.emit('SIGINT');
    expect(interruption.exitCode).toBe(143);
  });

  it('a signal after the grace exits at once with the first signal’s code: a stuck write cannot hang the process', () => {
    const { exits, messages } = caught(0);
    process.emit('SIGTERM');
    process.emit('SIGINT');
    expect(exits).toEqual([143]);
    expect(messages[1]).toMatch(/^stampede: SIGINT: exiting without waiting for the files/);
  });

  it('dispose gives the signals back', () => {
    const before = process.listenerCount('SIGINT');
    const { interruption } = caught();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    interruption.dispose();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
