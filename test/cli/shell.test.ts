import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stampede } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stampede-shell-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const COMMANDS = ['run', 'validate', 'lint', 'qualify', 'calibrate', 'sweep', 'merge', 'k8s', 'report', 'compare', 'history', 'serve', 'schema', 'export'];
const SMALL = 'test/fixtures/cli/small.yaml';

describe('stampede completion', { timeout: 60_000 }, () => {
  it('prints a bash completion script, and a zsh one under zsh', () => {
    const bash = stampede(['completion'], 60_000, { SHELL: '/bin/bash' });
    expect(bash.status).toBe(0);
    expect(bash.stdout).toContain('complete -o bashdefault -o default -F _stampede_yargs_completions stampede');
    const zsh = stampede(['completion'], 60_000, { SHELL: '/bin/zsh' });
    expect(zsh.status).toBe(0);
    expect(zsh.stdout.split('\n')[0]).toBe('#compdef stampede');
  });

  it('completes command names and the options of a command', () => {
    const commands = stampede(['--get-yargs-completions', 'stampede', '']).stdout.split('\n');
    expect(commands).toEqual(expect.arrayContaining([...COMMANDS, 'completion']));
    const options = stampede(['--get-yargs-completions', 'stampede', 'qualify', '--']).stdout.split('\n');
    expect(options).toEqual(expect.arrayContaining(['--max-steps', '--junit', '--target']));
  });
});

/** Every code a command can return (exit-codes.ts), as each --help lists it (yargs wraps the line). */
const EXIT_CODES =
  'Exit codes: 0 PASS (or no SLO) · 1 FAIL, INVALID or a regression · 2 bad input (profile, override, option) · 3 could not start, or a file not saved (named in the last line) · 4 the model diverged · 5 not comparable (compare: a side INVALID or interrupted) · 70 internal error (a bug; --debug for the stack) · 130 interrupted (SIGINT) · 143 terminated (SIGTERM).';

describe('--help', { timeout: 60_000 }, () => {
  it('shows one example per command and the exit codes', () => {
    for (const command of COMMANDS) {
      const help = stampede([command, '--help']);
      expect(help.status, command).toBe(0);
      const examples = help.stdout.split('\nExamples:\n')[1];
      expect(examples, `${command} --help has an example`).toMatch(new RegExp(`^  stampede ${command}\\b`));
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(EXIT_CODES);
    }
    expect(stampede(['--help']).stdout.replace(/\s+/g, ' ')).toContain(EXIT_CODES);
  });
});

describe('options from STAMPEDE_* variables', { timeout: 120_000 }, () => {
  it('apply over the profile; the command line wins over them; they cannot fill or replace a positional', () => {
    const fromEnv = join(scratch, 'from-env');
    const fromCli = join(scratch, 'from-cli');
    const env = { STAMPEDE_SEED: '43', STAMPEDE_QUIET: 'true', STAMPEDE_OUT: fromEnv, STAMPEDE_PROFILE: 'no-such-profile.yaml' };
    const run = stampede(['run', SMALL, '--out', fromCli], 120_000, env);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${fromCli}\n`); // quiet from the environment; --out from the command line
    expect(existsSync(fromEnv)).toBe(false);
    expect(JSON.parse(readFileSync(join(fromCli, 'result.json'), 'utf8')).seed).toBe(43); // the profile says 42
    const missing = stampede(['run'], 60_000, { STAMPEDE_PROFILE: SMALL });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^stampede: missing an argument/);
  });

  it('array options: the command line replaces the environment’s values', () => {
    const env = { STAMPEDE_SET: 'phases[0].rate=2000' };
    expect(stampede(['validate', SMALL], 60_000, env).stdout).toContain('| steady 2000 rps |');
    expect(stampede(['validate', SMALL, '--set', 'phases[0].rate=3000'], 60_000, env).stdout).toContain('| steady 3000 rps |');
  });

  it('a variable for another command is set aside; one no command takes is a warning line, never an error', () => {
    // A CI job sets STAMPEDE_JUNIT for its runs: validate takes no --junit, and must still work.
    const forAnother = stampede(['validate', SMALL], 60_000, { STAMPEDE_JUNIT: join(scratch, 'junit.xml'), STAMPEDE_MAX_STEPS: '4' });
    expect(forAnother.status).toBe(0);
    expect(forAnother.stderr).toBe('');
    expect(existsSync(join(scratch, 'junit.xml'))).toBe(false);
    const typo = stampede(['validate', SMALL], 60_000, { STAMPEDE_RATE: '9000' });
    expect(typo.status).toBe(0);
    expect(typo.stderr).toBe('stampede: STAMPEDE_RATE names no option of any command: ignored (a typo?)\n');
    expect(typo.stdout).not.toContain('9000');
    expect(stampede(['validate', SMALL], 60_000, { STAMPEDE_DEBUG: '1' }).status).toBe(0);
    // The same word typed on the command line is still refused.
    const typed = stampede(['validate', SMALL, '--junit', 'x.xml'], 60_000, { STAMPEDE_JUNIT: 'y.xml' });
    expect(typed.status).toBe(2);
    expect(typed.stderr).toMatch(/^stampede: unknown option --junit \(see stampede validate --help\)/);
  });
});
