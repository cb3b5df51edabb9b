// Regenerates reports/examples/ (or --out DIR) from the shipped incident profiles on the model, and the nightly reports.
// Usage: node --import tsx scripts/build-examples.ts [--out DIR] [profile … | nightly]
import { buildNamedExample, EXAMPLE_NAMES } from './examples.ts';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args.splice(outAt, 2)[1]! : 'reports/examples';
const names = args.length > 0 ? args : [...EXAMPLE_NAMES];
for (const name of names) {
  await buildNamedExample(name, out);
  process.stdout.write(`${out}/${name}/\n`);
}
