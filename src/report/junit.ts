/*
 * JUnit XML as the Apache Ant schema has it (test/fixtures/junit/JUnit.xsd), the strictest one CI
 * systems read: every suite with its timestamp, hostname, time and counts, its properties,
 * system-out and system-err; every case with its classname and time, and at most one of failure
 * or skipped. junit-report-builder cannot write that (it puts counts on <testsuites>, which the
 * schema forbids, and has no hostname, package, id or suite-level output), and the document is
 * small: written here.
 */

export interface JunitCase {
  classname: string;
  name: string;
  timeS: number;
  /** A failed case: a one-line message, a type, and the evidence as its text. */
  failure?: { message: string; type: string; text: string };
  /** A case that was not judged, and why. */
  skipped?: string;
}

export interface JunitSuite {
  name: string;
  /** The package the suite's cases belong to, e.g. `stampede.checkout`. */
  package: string;
  /** When it started, ISO 8601 (any zone): written as UTC without a zone, as the schema wants. */
  startedAt: string;
  hostname: string;
  timeS: number;
  properties: [string, string][];
  cases: JunitCase[];
  systemOut: string;
}

/** The document: one <testsuites> holding each suite (its id its position). */
export function junitDocument(suites: readonly JunitSuite[]): string {
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>', ...suites.flatMap(suiteLines), '</testsuites>', ''].join('\n');
}

function suiteLines(s: JunitSuite, id: number): string[] {
  const failures = s.cases.filter((c) => c.failure).length;
  const skipped = s.cases.filter((c) => c.skipped !== undefined && !c.failure).length;
  const attributes = {
    name: s.name,
    package: s.package,
    id: String(id),
    timestamp: new Date(s.startedAt).toISOString().slice(0, 19),
    hostname: s.hostname || 'localhost',
    tests: String(s.cases.length),
    failures: String(failures),
    errors: '0',
    skipped: String(skipped),
    time: seconds(s.timeS),
  };
  return [
    `  <testsuite${attrs(attributes)}>`,
    '    <properties>',
    ...s.properties.map(([name, value]) => `      <property${attrs({ name, value })}/>`),
    '    </properties>',
    ...s.cases.flatMap(caseLines),
    `    <system-out>${text(s.systemOut)}</system-out>`,
    '    <system-err></system-err>',
    '  </testsuite>',
  ];
}

function caseLines(c: JunitCase): string[] {
  const open = `    <testcase${attrs({ classname: c.classname, name: c.name, time: seconds(c.timeS) })}`;
  if (c.failure) return [`${open}>`, `      <failure${attrs({ message: c.failure.message, type: c.failure.type })}>${text(c.failure.text)}</failure>`, '    </testcase>'];
  if (c.skipped !== undefined) return [`${open}>`, `      <skipped${attrs({ message: c.skipped })}/>`, '    </testcase>'];
  return [`${open}/>`];
}

/** xs:decimal: plain digits, never an exponent. */
function seconds(s: number): string {
  return (Number.isFinite(s) && s > 0 ? s : 0).toFixed(3);
}

function attrs(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => ` ${key}="${attribute(value)}"`)
    .join('');
}

function text(value: string): string {
  return xmlCharacters(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Leaves out what XML 1.0 cannot hold at all (most C0 controls, lone surrogates, U+FFFE, U+FFFF): an exec's output tail may carry them. */
function xmlCharacters(value: string): string {
  let kept = '';
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000) kept += ch;
  }
  return kept;
}

/** Tabs and line breaks as character references: a parser would fold them into spaces in an attribute. */
function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}
