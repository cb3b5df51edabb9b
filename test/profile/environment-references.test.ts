import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/profile/load.ts';
import { issuesOf } from './helpers.ts';

/* `${NAME}` is read in the request templates only; anywhere else that sends, dials or opens text, it is refused, naming the field. */

const scratch = mkdtempSync(join(tmpdir(), 'stampede-references-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const HEAD = 'name: r\nphases: [{ type: steady, rate: 10, duration: 1s }]\ntarget: http://127.0.0.1:8080\n';
const WHERE = 'is read only in http.requests.<kind>.path, .headers.<name> and .body';

/** The issues of `${` out of place (a path with one also fails to open: that issue is left out). */
async function refused(text: string, file = 'p.yaml', overrides: string[] = []): Promise<string[]> {
  const issues = (await issuesOf(parseProfileText(text, join(scratch, file), overrides))).filter((i) => !i.message.startsWith('cannot read'));
  for (const issue of issues) expect(issue.hint).toContain(WHERE);
  return issues.map((i) => `${i.file.slice(scratch.length + 1)}:${i.line}:${i.column} ${i.path}: ${i.message}`);
}

describe('${NAME} outside the request templates', () => {
  it('is refused in every field sent, dialled or opened as written, naming it and its line', async () => {
    const text = [
      HEAD.replace('http://127.0.0.1:8080', '"memcached://${HOST}:11211"'),
      'keys:\n  count: 10\n  prefix: "${PREFIX}:"\n  hot: [{ key: "${HOT}", start: 0s, rise: 1s, peak: 0.1 }]',
      'http:\n  statsPath: /stats?token=${STATS_TOKEN}\n  tls: { servername: "${SNI}", ca: "${HOME}/ca.pem" }',
      '  requests:\n    default:\n      headers: { "x-${H}": v }',
    ].join('\n');
    expect(await refused(`${text}\n`)).toEqual([
      'p.yaml:3:9 target: "${HOST}" is not read from the environment here: the target is dialled as written',
      'p.yaml:7:11 keys.prefix: "${PREFIX}" is not read from the environment here: keys are sent as written',
      'p.yaml:8:16 keys.hot[0].key: "${HOT}" is not read from the environment here: keys are sent as written',
      'p.yaml:10:14 http.statsPath: "${STATS_TOKEN}" is not read from the environment here: the stats path is requested as written',
      'p.yaml:11:22 http.tls.servername: "${SNI}" is not read from the environment here: the name is sent (SNI) and checked as written',
      'p.yaml:11:36 http.tls.ca: "${HOME}" is not read from the environment here: the file is opened at this path as written',
      'p.yaml:14:18 http.requests.default.headers.x-${H}: "${H}" is not read from the environment here: a header name is sent as written',
    ]);
  });

  it('in keys.file, a topology file path, and a --set value', async () => {
    expect(await refused(`${HEAD}keys: { file: "\${DATA}/keys.csv" }\n`)).toEqual([
      'p.yaml:4:15 keys.file: "${DATA}" is not read from the environment here: the file is opened at this path as written',
    ]);
    expect(await refused(HEAD, 'set.yaml', ['http.statsPath=/s/${X}'])).toEqual([
      'set.yaml:1:1 http.statsPath: "${X}" is not read from the environment here: the stats path is requested as written (from --set http.statsPath=/s/${X})',
    ]);
  });

  it('in an exec command list, in the profile or its topology file; a command string (for /bin/sh), free text and the templates keep it', async () => {
    const timeline = '  timeline:\n    - { type: exec, at: 1s, command: "echo ${HOME}" }\n    - { type: exec, at: 1s, command: [echo, "${HOME}"] }\n';
    const topology = `entry: api\nservices:\n  api: { workers: 8, serviceTime: { type: exponential, mean: 1ms } }\n${timeline.replace(/^ {2}/gm, '')}`;
    writeFileSync(join(scratch, 'topology.yaml'), topology);
    expect(await refused(`${HEAD}topology: topology.yaml\n`, 'with-file.yaml')).toEqual([
      'topology.yaml:6:43 topology.timeline[1].command[1]: "${HOME}" is not read from the environment here: a command list runs without a shell, so nothing expands it (written as one string, /bin/sh would)',
    ]);
    const kept = [
      HEAD,
      'description: "costs ${X}"\nmultipliers: [{ at: 0s, factor: 1, label: "${LABEL}" }]\n',
      'http:\n  requests:\n    default: { path: "/a/${A}", headers: { authorization: "Bearer ${T}" }, body: "${B}" }\n',
    ].join('');
    const profile = await parseProfileText(kept, join(scratch, 'kept.yaml'));
    expect(profile.source.secrets?.map((s) => s.variable)).toEqual(['A', 'T', 'B']);
  });
});
