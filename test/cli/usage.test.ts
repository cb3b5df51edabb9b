import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, stampede, stampedeAsync } from '../helpers/cli.ts';

/* -h and -v on every command, and "did you mean" for a mistyped command or option, through the real CLI. */

const COMMANDS = ['run', 'validate', 'lint', 'qualify', 'calibrate', 'sweep', 'merge', 'k8s', 'report', 'compare', 'history', 'serve', 'schema', 'export'];
const VERSION = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;

/** Runs each argument list through the CLI, a few at a time: many tsx start-ups on two cores. */
async function eachThroughCli(argvs: string[][]) {
  const results = [];
  for (let i = 0; i < argvs.length; i += 4) results.push(...(await Promise.all(argvs.slice(i, i + 4).map((argv) => stampedeAsync(argv, 110_000)))));
  return results;
}

describe('-h and -v', { timeout: 240_000 }, () => {
  it('-h is --help on every command: its usage, exit 0', async () => {
    const helps = await eachThroughCli(COMMANDS.map((c) => [c, '-h']));
    helps.forEach((h, i) => {
      expect(h.status, COMMANDS[i]).toBe(0);
      expect(h.stdout.startsWith(`stampede ${COMMANDS[i]}`), COMMANDS[i]).toBe(true);
      expect(h.stdout).toMatch(/-h, --help/);
      expect(h.stdout).toMatch(/-v, --version/);
    });
    const top = stampede(['-h']);
    expect([top.status, top.stdout.split('\n')[0]]).toEqual([0, 'stampede <command>']);
  });

  it('-v is --version, alone and after a command', async () => {
    const versions = await eachThroughCli([['-v'], ['run', '-v'], ['qualify', '-v'], ['export', '-v']]);
    for (const v of versions) expect([v.status, v.stdout.trim(), v.stderr]).toEqual([0, VERSION, '']);
  });
});

describe('did you mean', { timeout: 120_000 }, () => {
  it('a mistyped command or option: exit 2, one line naming the suggestion; none when nothing is near', async () => {
    const [command, option, twice, far] = await eachThroughCli([
      ['qualfy', 'test/fixtures/cli/small.yaml'],
      ['run', 'test/fixtures/cli/small.yaml', '--tagret', 'http://127.0.0.1:1'],
      ['qualify', 'test/fixtures/cli/small.yaml', '--max-step', '3'],
      ['run', 'test/fixtures/cli/small.yaml', '--rate', '5'],
    ]);
    expect([command!.status, command!.stderr]).toEqual([2, expect.stringMatching(/^stampede: unknown command "qualfy": did you mean "qualify"\? \(commands: run, [^\n]*\)\n$/)]);
    expect([option!.status, option!.stderr]).toEqual([2, 'stampede: unknown option --tagret: did you mean --target? (see stampede run --help)\n']);
    expect([twice!.status, twice!.stderr]).toEqual([2, 'stampede: unknown option --max-step: did you mean --max-steps? (see stampede qualify --help)\n']);
    expect([far!.status, far!.stderr]).toEqual([2, 'stampede: unknown option --rate (see stampede run --help)\n']);
  });
});
