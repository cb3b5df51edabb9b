import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Qualification } from '../analysis/qualification.ts';
import type { GaugeCatalog } from '../recorder/gauges.ts';
import { CSV_FILES, type CsvTable, type CsvValue, csvText, IntervalColumns, qualificationSummaryTable, runSummaryTable, stepsTable } from '../report/csv.ts';
import { isRunFolder, makeFolders, readIntervalLog, readRunFolder, writeFileAtomic } from '../run-folder/index.ts';
import { commandLineError } from './input.ts';

/*
 * `stampede export csv <folder>` and `--csv` on run and qualify: a run or qualification folder's
 * figures as CSV files (report/csv.ts has the columns), written beside its JSON or into `outDir`.
 */

/** Writes the folder's CSV files into `outDir` (created); returns their paths. */
export async function writeCsvExports(dir: string, outDir: string = dir): Promise<string[]> {
  const qualificationFile = join(dir, 'qualification.json');
  const q = existsSync(qualificationFile) ? (readJson(qualificationFile) as Qualification) : undefined;
  if (!q && !isRunFolder(dir)) throw commandLineError('<folder>', `no result.json or qualification.json in ${dir}`, 'give a folder written by stampede run or stampede qualify');
  const runs = q ? q.steps.map((s, i) => ({ dir: join(dir, s.dir), lead: [i + 1] })) : [{ dir, lead: [] }];
  const intervals = await intervalsText(runs, q ? ['step'] : []).catch((error: unknown) => {
    throw error instanceof SyntaxError ? commandLineError('<folder>', `unreadable intervals.jsonl under ${dir}: ${error.message}`, 'the folder holds a damaged file') : error;
  });
  const tables: [string, CsvTable][] = q
    ? [
        [CSV_FILES.summary, qualificationSummaryTable(q)],
        [CSV_FILES.steps, stepsTable(q)],
      ]
    : [[CSV_FILES.summary, runOf(dir, (stored) => runSummaryTable(stored.result, stored.analysis))]];
  makeFolders(outDir);
  const written = [join(outDir, CSV_FILES.intervals)];
  writeFileAtomic(written[0]!, intervals);
  for (const [name, table] of tables) {
    written.push(join(outDir, name));
    writeFileAtomic(join(outDir, name), csvText([table.header, ...table.rows]));
  }
  return written;
}

/** Every interval of the runs (a qualification's steps, in order), each row led by `lead` (its step number). */
async function intervalsText(runs: readonly { dir: string; lead: CsvValue[] }[], lead: string[]): Promise<string> {
  const columns = new IntervalColumns(lead);
  const catalogs = runs.map((run) => runOf(run.dir, (stored) => ({ gauges: stored.result.gauges as GaugeCatalog, intervalMs: stored.result.intervals.intervalMs })));
  // Read twice: the first pass finds every reason and gauge (a column each), the second writes the rows.
  for (const [i, run] of runs.entries()) for await (const interval of readIntervalLog(run.dir)) columns.see(interval, catalogs[i]!.gauges);
  const chunks = [csvText([columns.header()])];
  const ROWS_PER_CHUNK = 1000;
  for (const [i, run] of runs.entries()) {
    let rows: CsvValue[][] = [];
    for await (const interval of readIntervalLog(run.dir)) {
      rows.push(columns.row(interval, catalogs[i]!.intervalMs, run.lead));
      if (rows.length === ROWS_PER_CHUNK) {
        chunks.push(csvText(rows));
        rows = [];
      }
    }
    if (rows.length > 0) chunks.push(csvText(rows));
  }
  return chunks.join('');
}

/** A run folder read back; a damaged result.json is bad input, named. */
function runOf<T>(dir: string, use: (stored: ReturnType<typeof readRunFolder>) => T): T {
  if (!isRunFolder(dir)) throw commandLineError('<folder>', `no result.json in ${dir}`, 'a step folder of the qualification is missing');
  try {
    return use(readRunFolder(dir));
  } catch (error) {
    if (error instanceof SyntaxError) throw commandLineError('<folder>', `unreadable result.json or analysis.json in ${dir}: ${error.message}`, 'the folder holds a damaged file');
    throw error;
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw commandLineError('<folder>', `unreadable ${file}: ${error.message}`, 'the folder holds a damaged qualification.json');
    throw error;
  }
}
