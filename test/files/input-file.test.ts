import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError, MiB, readInputJson, readInputLines, readInputText } from '../../src/files/input-file.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-input-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DOC = { what: 'a result.json', maxBytes: MiB };
const LOG = { what: 'an intervals.jsonl', maxBytes: 16 * MiB, maxLineBytes: 1024 };

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

async function lines(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readInputLines(path, LOG)) out.push(line);
  return out;
}

/** The error a read throws, for its exact message. */
function refusal(read: () => unknown): InputFileError {
  try {
    read();
  } catch (error) {
    if (error instanceof InputFileError) return error;
    throw error;
  }
  throw new Error('the read did not refuse');
}

describe('reading a file stampede was given', () => {
  it('reads a regular file whole, and through a symbolic link to one', () => {
    const path = file('a.json', '{"a": 1}\n');
    symlinkSync(path, join(scratch, 'link.json'));
    expect(readInputText(path, DOC)).toBe('{"a": 1}\n');
    expect(readInputJson(join(scratch, 'link.json'), DOC)).toEqual({ a: 1 });
  });

  it('refuses a directory, a device behind a symbolic link and a missing file, naming each and why', () => {
    mkdirSync(join(scratch, 'folder'));
    symlinkSync('/dev/zero', join(scratch, 'zero.json'));
    expect(refusal(() => readInputText(join(scratch, 'folder'), DOC)).message).toBe(`${join(scratch, 'folder')}: a directory, not a regular file`);
    expect(refusal(() => readInputText(join(scratch, 'zero.json'), DOC)).message).toBe(
      `${join(scratch, 'zero.json')}: a character device (a link to /dev/zero), not a regular file`,
    );
    const missing = refusal(() => readInputText(join(scratch, 'none.json'), DOC));
    expect([missing.reason, missing.code]).toEqual(['no such file', 'ENOENT']);
  });

  it('refuses a file over its bound before reading it (a sparse 600 MB file costs no disk)', () => {
    const path = join(scratch, 'big.json');
    writeFileSync(path, '');
    truncateSync(path, 600 * MiB);
    expect(refusal(() => readInputText(path, DOC)).reason).toBe('600 MiB, more than a result.json may hold (at most 1 MiB)');
  });

  it('names text that is not JSON', () => {
    expect(refusal(() => readInputJson(file('text.json', 'not json'), DOC)).reason).toMatch(/^not JSON \(Unexpected token/);
  });

  it('streams lines ending in \\n or \\r\\n, the last with or without one, across chunk boundaries', async () => {
    const long = 'x'.repeat(1000);
    expect(await lines(file('lines.jsonl', `one\r\ntwo\n\n${long}\nlast`))).toEqual(['one', 'two', '', long, 'last']);
    const many = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    expect(await lines(file('many.jsonl', `${many.join('\n')}\n`))).toEqual(many);
  });

  it('refuses a line longer than the bound instead of gathering it (a file of zeros is one endless line)', async () => {
    const path = join(scratch, 'zeros.jsonl');
    writeFileSync(path, '');
    truncateSync(path, 8 * MiB);
    await expect(lines(path)).rejects.toThrow(`${path}: a line of more than 1 KiB, longer than any of an intervals.jsonl`);
  });
});
