import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/profile/protocols/registry.ts';
import { CommandLineError } from '../../src/cli/errors.ts';
import { guardTarget, remoteNotice } from '../../src/cli/input.ts';
import { allowedRemoteHosts, checkOptionValues, numberOption } from '../../src/cli/options.ts';

describe('guardTarget: loopback by default, a remote host only when named', () => {
  it('lets loopback and the model through, announcing nothing', () => {
    expect(guardTarget(parseTarget('model'), [], '--target')).toEqual([]);
    expect(guardTarget(parseTarget('http://127.0.0.1:8080'), [], '--target')).toEqual([]);
    expect(guardTarget(parseTarget('memcached://localhost:1,[::1]:2,127.0.0.2:3'), [], '--target')).toEqual([]);
  });

  it('refuses a remote host, naming it, where it came from and how to allow it', () => {
    expect(() => guardTarget(parseTarget('http://10.1.2.3:80'), [], 'p.yaml: target')).toThrow(CommandLineError);
    expect(() => guardTarget(parseTarget('http://10.1.2.3:80'), [], 'p.yaml: target')).toThrow(
      'p.yaml: target: 10.1.2.3 is not a loopback host; stampede sends traffic only to 127.0.0.0/8, ::1 and localhost unless told otherwise (to load it on purpose: --allow-remote 10.1.2.3, or STAMPEDE_ALLOW_REMOTE=10.1.2.3)',
    );
  });

  it('allows exactly the hosts named, in any spelling of the same address, and returns them to announce as they are dialled', () => {
    expect(guardTarget(parseTarget('memcached://127.0.0.1:1,Cache.Example.com:2'), ['cache.example.com'], '--target')).toEqual(['cache.example.com']);
    expect(guardTarget(parseTarget('http://[0:0:0:0:0:0:a:1]:80'), ['::a:1'], '--target')).toEqual(['::a:1']);
    expect(() => guardTarget(parseTarget('memcached://a.example.com:1,b.example.com:2'), ['a.example.com'], '--target')).toThrow('b.example.com is not a loopback host');
    expect(remoteNotice(['10.1.2.3'])).toBe('stampede: sending traffic to remote host 10.1.2.3 (allowed by --allow-remote / STAMPEDE_ALLOW_REMOTE)\n');
  });

  it('reads --allow-remote lists and STAMPEDE_ALLOW_REMOTE together', () => {
    expect(allowedRemoteHosts(['a,b', ' c '], 'd, e')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(allowedRemoteHosts(undefined, undefined)).toEqual([]);
  });
});

describe('numeric options', () => {
  it.each([
    ['2', { above: 1, example: '1.5' }, 2],
    ['1e3', { min: 1, integer: true, example: '1' }, 1000],
    ['0.05', { above: 0, below: 1, example: '0.05' }, 0.05],
  ])('reads %s', (text, range, value) => {
    expect(numberOption('--x', text, range)).toBe(value);
  });

  it.each(['', 'abc', 'NaN', 'Infinity', '1.5x', '0x10', '1', '11'])('refuses %j for a factor in (1, 10], naming the option and its range', (text) => {
    expect(() => numberOption('--growth', text, { above: 1, max: 10, example: '1.5' })).toThrow(
      `--growth: expected a number > 1 and ≤ 10, got ${JSON.stringify(text)} (e.g. --growth 1.5)`,
    );
  });

  it('refuses a single-valued option given twice or without a value, but not a repeatable one', () => {
    const declared = { array: ['set'], boolean: ['quiet'] };
    expect(() => checkOptionValues({ set: ['a=1', 'b=2'], quiet: true }, declared, ['--set', 'a=1', '--set', 'b=2', '--quiet'])).not.toThrow();
    expect(() => checkOptionValues({ growth: ['2', '3'] }, declared, [])).toThrow('--growth: given more than once');
    expect(() => checkOptionValues({ out: '' }, declared, ['--out'])).toThrow('--out: expected a value');
    expect(() => checkOptionValues({ growth: '1.5' }, declared, ['--growth', '--quiet'])).toThrow('--growth: expected a value');
  });
});
