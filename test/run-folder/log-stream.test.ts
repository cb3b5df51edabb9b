import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogStream } from '../../src/run-folder/atomic.ts';
import type { ArtifactWriteError } from '../../src/run-folder/write-errors.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-log-stream-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a log written off the sending thread (async)', () => {
  it('keeps every chunk, in order, once close has waited for the queue', async () => {
    const path = join(scratch, 'ordered.log');
    const log = new LogStream(path, undefined, 'async');
    const lines = Array.from({ length: 2000 }, (_, i) => `${i} ${'x'.repeat(i % 97)}\n`);
    for (const line of lines) log.write(line);
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
    await log.close();
  });

  it('stops at a disk that refuses it, says why once, and drops what was queued', async () => {
    const failures: ArtifactWriteError[] = [];
    const log = new LogStream('/dev/full', (f) => failures.push(f), 'async');
    for (let i = 0; i < 50; i++) log.write(`interval ${i}\n`);
    await log.close();
    expect(failures).toHaveLength(1);
    expect(log.failure?.message).toBe('could not write /dev/full: no space left on device (ENOSPC)');
    log.write('after the failure\n');
    await log.close();
    expect(failures).toHaveLength(1);
  });
});
