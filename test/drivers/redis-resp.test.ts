import { describe, expect, it } from 'vitest';
import { CMD_GET, CMD_MGET, CMD_SET, RespReader, type ReplySink } from '../../src/driver/redis/resp-reader.ts';
import { RespWriter } from '../../src/driver/redis/resp-writer.ts';

/** A queue of awaited commands that records what the reader said, as the connection would. */
function sinkFor(awaited: [command: number, keys: number][]) {
  const events: string[] = [];
  const queue = [...awaited];
  const sink: ReplySink = {
    awaitedCommand: () => queue[0]?.[0] ?? -1,
    awaitedKeys: () => queue[0]?.[1] ?? 0,
    hit: () => events.push('hit'),
    done: () => {
      queue.shift();
      events.push('done');
    },
    error: (prefix) => {
      queue.shift();
      events.push(`error ${prefix}`);
    },
    malformed: () => events.push('malformed'),
  };
  return { sink, events };
}

const REPLIES = '$5\r\nhello\r\n$-1\r\n+OK\r\n*3\r\n$1\r\na\r\n$-1\r\n$0\r\n\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n';
const AWAITED: [number, number][] = [
  [CMD_GET, 1],
  [CMD_GET, 1],
  [CMD_SET, 0],
  [CMD_MGET, 3],
  [CMD_GET, 1],
];
const EXPECTED = ['hit', 'done', 'done', 'done', 'hit', 'hit', 'done', 'error WRONGTYPE'];

describe('RESP2 replies (resp-reader.ts)', () => {
  it('reads replies whole or split at every byte alike: hits, nils, +OK, an MGET array and an error prefix', () => {
    const whole = sinkFor(AWAITED);
    new RespReader(whole.sink).read(Buffer.from(REPLIES));
    expect(whole.events).toEqual(EXPECTED);
    const split = sinkFor(AWAITED);
    const reader = new RespReader(split.sink);
    for (const byte of Buffer.from(REPLIES)) reader.read(Buffer.of(byte));
    expect(split.events).toEqual(EXPECTED);
  });

  it('calls a frame malformed when it does not answer the command awaited, or when nothing is', () => {
    const malformed = (awaited: [number, number][], bytes: string) => {
      const { sink, events } = sinkFor(awaited);
      new RespReader(sink).read(Buffer.from(bytes));
      return events.at(-1);
    };
    expect(malformed([[CMD_GET, 1]], '?garbage\r\n')).toBe('malformed');
    expect(malformed([[CMD_GET, 1]], '+OK\r\n')).toBe('malformed');
    expect(malformed([[CMD_SET, 0]], '$3\r\nabc\r\n')).toBe('malformed');
    expect(malformed([[CMD_MGET, 2]], '*3\r\n')).toBe('malformed');
    expect(malformed([[CMD_MGET, 1]], '*1\r\n:1\r\n')).toBe('malformed');
    expect(malformed([[CMD_GET, 1]], '$3\r\nabcd\r\n')).toBe('malformed');
    expect(malformed([[CMD_GET, 1]], '$x\r\n')).toBe('malformed');
    expect(malformed([[CMD_GET, 1]], '$-2\r\n')).toBe('malformed');
    expect(malformed([], '+OK\r\n')).toBe('malformed');
  });
});

describe('RESP2 commands (resp-writer.ts)', () => {
  it('writes bulk strings with their UTF-8 byte length, moving a key whose length has more digits', () => {
    const flushed: string[] = [];
    const w = new RespWriter(64, () => {
      flushed.push(w.buffer.toString('utf8', 0, w.used));
      w.used = 0;
    });
    w.arrayHeader(3);
    w.bulkString('key:1');
    w.bulkString('é'.repeat(5));
    w.bulkBytes(Buffer.from('0123456789'), 4);
    w.bulkInteger(1500);
    expect(flushed.join('') + w.buffer.toString('utf8', 0, w.used)).toBe(`*3\r\n$5\r\nkey:1\r\n$10\r\n${'é'.repeat(5)}\r\n$4\r\n0123\r\n$4\r\n1500\r\n`);
  });

  it('keeps what is written when a flush cannot make room (commands waiting for the pipelining depth), growing instead', () => {
    let flushes = 0;
    const w = new RespWriter(16, () => flushes++);
    w.arrayHeader(2);
    w.bulkString('GET');
    w.bulkString('a-key-longer-than-the-buffer');
    expect(flushes).toBeGreaterThan(0);
    expect(w.buffer.toString('latin1', 0, w.used)).toBe('*2\r\n$3\r\nGET\r\n$28\r\na-key-longer-than-the-buffer\r\n');
  });
});
