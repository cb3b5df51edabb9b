import { describe, expect, it } from 'vitest';
import { CommandLineError, exitCodeFor } from '../../src/cli/errors.ts';
import { ExitCode } from '../../src/cli/exit-codes.ts';
import { RunStartError } from '../../src/driver/index.ts';
import { ProfileError } from '../../src/profile/index.ts';
import { TargetError } from '../../src/profile/target.ts';

function mapped(error: unknown, debug = false): { code: number; stderr: string } {
  let stderr = '';
  const code = exitCodeFor(error, (text) => (stderr += text), debug);
  return { code, stderr };
}

describe('exitCodeFor', () => {
  it.each([
    [
      'a bad profile',
      new ProfileError('p.yaml', [{ file: 'p.yaml', line: 3, column: 1, path: 'seed', message: 'expected an integer', hint: 'e.g. 1' }]),
      ExitCode.InvalidInput,
      'p.yaml:3:1',
    ],
    ['a rejected command line', new CommandLineError('unknown option --rate (see stampede run --help)'), ExitCode.InvalidInput, 'stampede: unknown option --rate'],
    ['a bad target', new TargetError('gopher://x', 'unknown scheme "gopher"'), ExitCode.InvalidInput, 'unknown scheme "gopher"'],
    ['a run that could not start', new RunStartError('worker 0 exited'), ExitCode.CouldNotStart, 'stampede: could not start: worker 0 exited'],
  ])('maps %s to its code', (_, error, code, text) => {
    const out = mapped(error);
    expect(out.code).toBe(code);
    expect(out.stderr).toContain(text);
  });

  it('writes a command-line mistake as one line naming the option', () => {
    const issue = { file: '<command line>', line: 0, column: 0, path: '--vary', message: 'no values in ""', hint: 'e.g. --vary a=1,2' };
    expect(mapped(new ProfileError('<command line>', [issue])).stderr).toBe('stampede: --vary: no values in "" (e.g. --vary a=1,2)\n');
    expect(mapped(new CommandLineError('--growth: expected a number\nover two lines')).stderr).toBe('stampede: --growth: expected a number over two lines\n');
  });

  it('gives any other error its own code (70) and one line, without the stack', () => {
    const out = mapped(new TypeError("Cannot read properties of undefined (reading 'p99')\nsecond line"));
    expect(out.code).toBe(ExitCode.InternalError);
    expect(ExitCode.InternalError).toBe(70);
    expect(out.stderr).toBe("stampede: internal error: Cannot read properties of undefined (reading 'p99') (set STAMPEDE_DEBUG=1 for the stack)\n");
  });

  it('adds the stack when debugging', () => {
    const error = new Error('boom');
    const out = mapped(error, true);
    expect(out.code).toBe(ExitCode.InternalError);
    expect(out.stderr).toBe(`stampede: internal error: boom\n${error.stack}\n`);
  });

  it('maps a thrown non-Error value too', () => {
    expect(mapped('a string').stderr).toContain('internal error: a string');
  });
});
