import { describe, expect, it } from 'vitest';
import { closest, describeParseFailure } from '../../src/cli/options.ts';

const COMMANDS = [{ command: 'run <profile>' }, { command: 'qualify <profile>' }, { command: 'report <dir>' }, { command: 'export <format> <source>' }];
const RUN_OPTIONS = ['set', 'out', 'target', 'seed', 'interval', 'quiet', 'junit', 'csv', 'start-at', 'max-steps', 'help', 'version'];

describe('did you mean', () => {
  it('finds the word a typo meant: a letter missing, extra, wrong, or two swapped', () => {
    expect(closest('rn', ['run', 'report'])).toBe('run');
    expect(closest('qualfy', ['run', 'qualify'])).toBe('qualify');
    expect(closest('tagret', RUN_OPTIONS)).toBe('target');
    expect(closest('max-step', RUN_OPTIONS)).toBe('max-steps');
    expect(closest('JUNIT', RUN_OPTIONS)).toBe('junit');
  });

  it('names nothing when no word is near enough, or two are equally near', () => {
    expect(closest('rate', RUN_OPTIONS)).toBeUndefined();
    expect(closest('launch', ['run', 'qualify', 'report'])).toBeUndefined();
    expect(closest('sed', ['set', 'seed'])).toBeUndefined();
  });

  it('says it in the one line of a failed parse', () => {
    const optionsOf = (command: string) => (command === 'run' ? RUN_OPTIONS : []);
    expect(describeParseFailure('Unknown argument: rn', ['rn', 'x.yaml'], COMMANDS, optionsOf)).toBe(
      'unknown command "rn": did you mean "run"? (commands: run, qualify, report, export; see stampede --help)',
    );
    expect(describeParseFailure('Unknown argument: tagret', ['run', 'x.yaml', '--tagret', 'y'], COMMANDS, optionsOf)).toBe(
      'unknown option --tagret: did you mean --target? (see stampede run --help)',
    );
    // yargs names --max-step twice (max-step, maxStep): one message.
    expect(describeParseFailure('Unknown arguments: max-step, maxStep', ['run', 'x.yaml', '--max-step', '3'], COMMANDS, optionsOf)).toBe(
      'unknown option --max-step: did you mean --max-steps? (see stampede run --help)',
    );
    expect(describeParseFailure('Unknown argument: rate', ['run', 'x.yaml', '--rate', '5'], COMMANDS, optionsOf)).toBe('unknown option --rate (see stampede run --help)');
  });
});
