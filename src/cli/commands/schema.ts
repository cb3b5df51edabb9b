import type { StampedeCommand } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';

export const schema: StampedeCommand<object> = {
  command: 'schema',
  describe: 'print the JSON Schema of the profile format (for editor completion)',
  example: ['stampede schema > stampede.schema.json', 'JSON Schema for editor completion'],
  builder: (yargs) => yargs,
  async run() {
    const { profileJsonSchema } = await import('../../profile/json-schema.ts');
    process.stdout.write(`${JSON.stringify(profileJsonSchema(), null, 2)}\n`);
    return ExitCode.Ok;
  },
};
