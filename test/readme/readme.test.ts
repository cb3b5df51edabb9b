import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.ts';
import { docPages } from '../helpers/docs.ts';

/*
 * The README and the docs/ pages are executed: every `npx stampede …` they show — in ```sh blocks,
 * in inline code with the exit code it states, and the fix column of the shipped-profiles table
 * (docs/profiles.md) — runs as written (in a scratch folder, so run folders land there), and its
 * exit code must be the one the page states next to it. Only blocks marked `<!-- long: why -->`
 * are skipped.
 */

interface ReadmeCommand {
  command: string;
  exit: number;
  /** Where it is shown (`docs/k6.md:40`), for the failure message. */
  where: string;
}

const PAGES = docPages();
const STAMPEDE = /^(?:npm ci && )?npx stampede\s/;

/** Commands of ```sh blocks: `# exit N` at the end of a line states its code (default 0). */
function blockCommands(markdown: string, file = 'README.md'): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const long = /^<!-- long\b/.test(lines[i - 1] ?? '');
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      const line = lines[i]!;
      if (long || !STAMPEDE.test(line)) continue;
      const stated = /#\s*exit (\d+)\s*$/.exec(line);
      out.push({ command: line.replace(/\s+#.*$/, '').replace(/^npm ci && /, ''), exit: stated ? Number(stated[1]) : 0, where: `${file}:${i + 1}` });
    }
  }
  return out;
}

/** Inline `npx stampede …` code spans whose sentence states "(exit code N" within the next line. */
function inlineCommands(markdown: string, file = 'README.md'): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  for (const match of markdown.matchAll(/`(npx stampede [^`]+)`([^`]{0,120})/g)) {
    const stated = /\(exit code (\d+)/.exec(match[2]!);
    if (!stated || match[1]!.includes('<')) continue;
    const line = markdown.slice(0, match.index).split('\n').length;
    out.push({ command: match[1]!, exit: Number(stated[1]), where: `${file}:${line}` });
  }
  return out;
}

/** The shipped-profiles table: each profile as shipped, and with its fix, against "as shipped → with the fix". */
function fixTableCommands(markdown: string, file = 'README.md'): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  const lines = markdown.split('\n');
  lines.forEach((line, i) => {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const profile = /^`([\w-]+\.yaml)`$/.exec(cells[1] ?? '')?.[1];
    const exits = /^(\d)(?: → (\d))?$/.exec(cells[4] ?? '');
    if (!profile || !exits) return;
    const where = `${file}:${i + 1}`;
    out.push({ command: `npx stampede run profiles/${profile}`, exit: Number(exits[1]), where });
    const fix = /^`(--set [^`]+)`/.exec(cells[3] ?? '')?.[1];
    if (exits[2] !== undefined) {
      if (!fix) throw new Error(`${where}: an exit code with the fix but no fix flag`);
      out.push({ command: `npx stampede run profiles/${profile} ${fix}`, exit: Number(exits[2]), where });
    }
  });
  return out;
}

const scratch = mkdtempSync(join(tmpdir(), 'stampede-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A scratch folder where `npx stampede` is the development CLI and profiles/ is the repository's. */
function sandbox(): string {
  const bin = join(scratch, 'bin');
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, 'npx');
  writeFileSync(
    shim,
    `#!/bin/sh\n[ "$1" = stampede ] || { echo "npx $1: only npx stampede runs here" >&2; exit 127; }\nshift\nexec "${process.execPath}" "${join(repoRoot, 'scripts/stampede-dev.js')}" "$@"\n`,
    { mode: 0o755 },
  );
  const cwd = join(scratch, 'cwd');
  mkdirSync(cwd, { recursive: true });
  symlinkSync(join(repoRoot, 'profiles'), join(cwd, 'profiles'));
  return cwd;
}

function runShell(command: string, cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd,
      env: { ...process.env, PATH: `${join(scratch, 'bin')}:${process.env.PATH}` },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 240_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** Every command of the README and the docs/ pages, of one kind. */
const all = (find: (markdown: string, file: string) => ReadmeCommand[]) => PAGES.flatMap((page) => find(page.text, page.file));

describe('the README and the docs, executed', () => {
  const commands = [...all(blockCommands), ...all(inlineCommands), ...all(fixTableCommands)];

  it('finds the commands they show: blocks, inline claims and every row of the fix table', () => {
    expect(all(blockCommands).length).toBeGreaterThanOrEqual(20);
    const readme = PAGES.find((p) => p.file === 'README.md')!.text;
    // The quick start's own claim, and its first command, are the README's.
    expect(inlineCommands(readme).map((c) => c.command)).toContain('npx stampede run profiles/viral-hot-key.yaml');
    expect(blockCommands(readme)[0]?.command).toBe('npx stampede run profiles/steady-peak.yaml');
    // Pages other than the README hold commands too: the test reads them, not the README alone.
    expect(new Set(all(blockCommands).map((c) => c.where.split(':')[0])).size).toBeGreaterThanOrEqual(5);
    const table = all(fixTableCommands);
    expect(table.filter((c) => c.command.includes('--set')).length).toBeGreaterThanOrEqual(12);
    expect(blockCommands('<!-- long: x -->\n```sh\nnpx stampede run a.yaml\n```\n```sh\nnpx stampede run b.yaml   # exit 1\n```\n')).toEqual([
      { command: 'npx stampede run b.yaml', exit: 1, where: 'README.md:6' },
    ]);
  });

  it('every command exits with the code its page states next to it', async () => {
    const cwd = sandbox();
    const failures: string[] = [];
    // Two at a time: the model is single-threaded, and CI shares two cores with other suites.
    const queue = [...commands];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const { code, stderr } = await runShell(c.command, cwd);
        if (code !== c.exit)
          failures.push(`${c.where}: \`${c.command}\` exited ${code}, the page says ${c.exit}${stderr ? `\n  ${stderr.trim().split('\n').slice(-2).join('\n  ')}` : ''}`);
      }
    };
    await Promise.all([worker(), worker()]);
    expect(failures).toEqual([]);
  }, 900_000);
});
