/** The folders or files given to calibrate cannot be calibrated from (the CLI maps this to exit 2, bad input). */
export class CalibrationInputError extends Error {
  override readonly name = 'CalibrationInputError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}
