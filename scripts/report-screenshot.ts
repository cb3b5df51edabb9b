// Takes docs/report-screenshot.png: the top of an example report, in headless Chromium.
// Usage: node --import tsx scripts/report-screenshot.ts [report.html] [out.png]
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { visit } from '../test/report/chromium.ts';

const page = resolve(process.argv[2] ?? 'reports/examples/viral-hot-key/run/report.html');
const out = process.argv[3] ?? 'docs/report-screenshot.png';
const visited = await visit(pathToFileURL(page).href, { evaluate: 'document.title', screenshot: { width: 1040, maxHeight: 2300 } });
if (visited.errors.length > 0) throw new Error(`the page logged errors: ${visited.errors.join('; ')}`);
writeFileSync(out, visited.screenshot!);
process.stdout.write(`${out}\n`);
