import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * What the script draws with, taken from src/schedule itself: the generator and seed derivation,
 * the size samplers and weighted pick, the key drawer (popularity laws, Zipf, hot keys over time)
 * and the key names. The names here are what `ScheduleModules` in the script's types declares.
 */
const ENTRY = [
  "export { Rng, deriveSeed } from './rng';",
  "export { createSampler, cumulativePicker } from './sample';",
  "export { KeyDrawer, createKeyspace } from './keys';",
].join('\n');

/** The global the bundle defines: the script reads the schedule's modules from it. */
export const BUNDLE_GLOBAL = 'stampedeSchedule';

let bundled: string | undefined;

/**
 * The schedule modules as one script-embeddable statement, `var stampedeSchedule = (() => {…})();`,
 * bundled by esbuild from the modules beside this one (the .ts sources, or the .js of an installed
 * build), so the script cannot draw otherwise than the schedule does. One line: a TypeScript
 * comment can then keep k6 users' type checks off code that is not theirs. ES2017 with no module
 * syntax, which k6's JavaScript runtime runs as is. Bundled once per process (a few milliseconds).
 */
export function scheduleBundle(): string {
  bundled ??= buildSync({
    stdin: { contents: ENTRY, resolveDir: fileURLToPath(new URL('../../../../schedule/', import.meta.url)), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: BUNDLE_GLOBAL,
    platform: 'neutral',
    target: 'es2017',
    minifyWhitespace: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    // Not the tsconfig of a checkout: an installed build has none, and the bundle should not vary with one.
    tsconfigRaw: {},
  }).outputFiles[0]!.text.trim();
  return bundled;
}
