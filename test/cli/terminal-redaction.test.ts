import { afterEach, describe, expect, it, vi } from 'vitest';
import { redactTerminal } from '../../src/cli/terminal-redaction.ts';
import { addSecrets } from '../../src/run-folder/redaction.ts';

afterEach(() => vi.restoreAllMocks());

describe('the terminal', () => {
  it('prints a registered secret as [redacted], in text and in bytes, until restored', () => {
    let printed = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((printed += String(chunk)), true));
    const restore = redactTerminal();
    addSecrets(['hunter2-token']);
    process.stderr.write('auth failed for Bearer hunter2-token\n');
    process.stderr.write(Buffer.from('again: hunter2-token\n'));
    restore();
    expect(printed).toBe('auth failed for Bearer [redacted]\nagain: [redacted]\n');
  });
});
