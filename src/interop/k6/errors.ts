/** A k6 script stampede cannot read: it does not compile, or its init code throws. Bad input (exit 2). */
export class K6ScriptError extends Error {
  override readonly name = 'K6ScriptError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`k6 script ${file}: ${problem}`);
  }
}
