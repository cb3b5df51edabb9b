import type { Qualification } from '../analysis/qualification.ts';
import { InputFileError } from '../files/input-file.ts';
import { decodeFromCompressedBase64 } from '../recorder/histograms.ts';
import type { RunResult } from '../recorder/result.ts';

/*
 * Whether a JSON file read back is the stampede file its name says: its schema, the sections every
 * reader takes, and what they decode (the histograms). Another program's JSON, `{}` or a damaged
 * file is bad input naming the file and the field, not a TypeError deep in a report.
 */

type Kind = 'object' | 'string' | 'number' | 'boolean';
type Fields = Readonly<Record<string, Kind>>;

const RESULT_FIELDS: Fields = {
  profile: 'object',
  target: 'string',
  startedAt: 'string',
  requests: 'object',
  rate: 'object',
  latencyUs: 'object',
  serviceTimeUs: 'object',
  histograms: 'object',
  byOutcome: 'object',
  byKind: 'object',
  byClient: 'object',
  intervals: 'object',
  driver: 'object',
  wall: 'object',
};
const QUALIFICATION_FIELDS: Fields = { profile: 'object', target: 'string', step: 'object', wall: 'object', expectedPeakRps: 'number' };
/** What every reader of a step takes; its figures may be null (a rate of a step with no request). */
const STEP_FIELDS: Fields = { askedRps: 'number', pass: 'boolean', latencyUs: 'object', dir: 'string' };

/** result.json of schema 2 (every interval inline, upgraded on reading) or 3. @throws InputFileError */
export function checkResultShape(file: string, value: unknown): RunResult {
  const result = checkDocument(file, value, /^stampede\.result\/[23]$/, 'stampede.result/3');
  checkFields(file, result, RESULT_FIELDS, '');
  for (const name of ['latency', 'serviceTime']) checkHistogram(file, (result.histograms as Record<string, unknown>)[name], `histograms.${name}`);
  return value as RunResult;
}

/** @throws InputFileError */
export function checkQualificationShape(file: string, value: unknown): Qualification {
  const qualification = checkDocument(file, value, /^stampede\.qualification\/1$/, 'stampede.qualification/1');
  checkFields(file, qualification, QUALIFICATION_FIELDS, '');
  if (!Array.isArray(qualification.steps)) throw damaged(file, 'steps', 'a list');
  for (const [i, step] of qualification.steps.entries()) {
    if (step === null || typeof step !== 'object') throw damaged(file, `steps[${i}]`, 'an object');
    checkFields(file, step as Record<string, unknown>, STEP_FIELDS, `steps[${i}].`);
  }
  return value as Qualification;
}

function checkDocument(file: string, value: unknown, schema: RegExp, expected: string): Record<string, unknown> {
  const document = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const found = document?.schema;
  if (document === undefined || typeof found !== 'string' || !schema.test(found))
    throw new InputFileError(file, `not a file stampede wrote: its schema is ${found === undefined ? 'missing' : JSON.stringify(found)}, expected ${expected}`);
  return document;
}

function checkFields(file: string, document: Record<string, unknown>, fields: Fields, prefix: string): void {
  for (const [name, kind] of Object.entries(fields)) {
    const value = document[name];
    if (value === null || typeof value !== kind) throw damaged(file, `${prefix}${name}`, `a ${kind}`);
  }
}

function checkHistogram(file: string, encoded: unknown, field: string): void {
  if (typeof encoded !== 'string') throw damaged(file, field, 'an encoded histogram');
  try {
    decodeFromCompressedBase64(encoded);
  } catch (error) {
    throw new InputFileError(file, `a damaged file: ${field} is no encoded histogram (${(error as Error).message})`);
  }
}

function damaged(file: string, field: string, expected: string): InputFileError {
  return new InputFileError(file, `a damaged file: ${field} is not ${expected}`);
}
