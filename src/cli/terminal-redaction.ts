import { redact } from '../run-folder/redaction.ts';

type Write = typeof process.stdout.write;

/**
 * What the CLI prints passes through the same redaction as every file of a run
 * (run-folder/redaction.ts): a secret in an error message, a summary or a progress line is printed
 * [redacted]. Wraps stdout and stderr for one command; the returned function puts them back.
 */
export function redactTerminal(): () => void {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  streams.forEach((stream, i) => {
    const write = originals[i]!;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const redacted = redact(text);
      return (write as (...args: unknown[]) => boolean).call(stream, redacted === text ? chunk : redacted, ...rest);
    }) as Write;
  });
  return () => {
    streams.forEach((stream, i) => {
      stream.write = originals[i]!;
    });
  };
}
