import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';

/** The Apache Ant JUnit schema (see the file's header for its source). */
const ANT_SCHEMA = readFileSync(new URL('../fixtures/junit/ant-junit.xsd', import.meta.url), 'utf8');

/** xmllint's complaints about a JUnit document against the Ant schema; none when it is valid. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: { fileName: 'junit.xml', contents: xml }, schema: { fileName: 'ant-junit.xsd', contents: ANT_SCHEMA } });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

export interface JunitCase {
  name: string;
  classname: string;
  time: number;
  failure?: { message: string; type: string; text: string };
  skipped?: string;
  /** The case's evidence: its block in the suite's system-out. */
  evidence: string;
}

export interface JunitSuite {
  name: string;
  package: string;
  timestamp: string;
  hostname: string;
  time: number;
  tests: number;
  failures: number;
  skipped: number;
  properties: Record<string, string>;
  cases: JunitCase[];
  systemOut: string;
}

interface RawCase {
  '@_name': string;
  '@_classname': string;
  '@_time': string;
  failure?: { '@_message': string; '@_type': string; '#text'?: string };
  skipped?: { '@_message'?: string };
}

/** The one suite of a stampede JUnit document, read back with a real XML parser. */
export function readJunit(xml: string): JunitSuite {
  const parsed = new XMLParser({
    ignoreAttributes: false,
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml);
  const suites = parsed.testsuites.testsuite as Record<string, unknown>[];
  if (suites.length !== 1) throw new Error(`expected one testsuite, got ${suites.length}`);
  const s = suites[0]!;
  const systemOut = String(s['system-out'] ?? '');
  const blocks = evidenceBlocks(systemOut);
  const properties = ((s.properties as { property?: { '@_name': string; '@_value': string }[] }).property ?? []).map((p) => [p['@_name'], p['@_value']]);
  return {
    name: String(s['@_name']),
    package: String(s['@_package']),
    timestamp: String(s['@_timestamp']),
    hostname: String(s['@_hostname']),
    time: Number(s['@_time']),
    tests: Number(s['@_tests']),
    failures: Number(s['@_failures']),
    skipped: Number(s['@_skipped']),
    properties: Object.fromEntries(properties),
    cases: ((s.testcase as RawCase[] | undefined) ?? []).map((c) => ({
      name: c['@_name'],
      classname: c['@_classname'],
      time: Number(c['@_time']),
      ...(c.failure && { failure: { message: c.failure['@_message'], type: c.failure['@_type'], text: c.failure['#text'] ?? '' } }),
      ...(c.skipped && { skipped: c.skipped['@_message'] ?? '' }),
      evidence: blocks.get(c['@_name']) ?? '',
    })),
    systemOut,
  };
}

/** system-out: the figures, a blank line, then each case's name and its evidence indented under it. */
function evidenceBlocks(systemOut: string): Map<string, string> {
  const blocks = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of systemOut.split('\n\n').slice(1).join('\n\n').split('\n')) {
    if (line.startsWith('  ')) current?.push(line.slice(2));
    else blocks.set(line, (current = []));
  }
  return new Map([...blocks].map(([name, lines]) => [name, lines.join('\n')]));
}
