import { describe, expect, it } from 'vitest';
import { PhaseSchema, ProfileSchema } from '../../src/profile/schema.ts';
import { salvage } from '../../src/profile/schema-walk.ts';

/*
 * salvage gives the cross-field checks the schema's output of whatever parses, so a profile with a
 * schema problem in one field is still checked across the others.
 */
describe('salvage', () => {
  it('is the schema output when the whole parses', () => {
    const data = { name: 't', phases: [{ type: 'steady', rate: 10, duration: '5s' }] };

    expect(salvage(ProfileSchema, data)).toEqual(ProfileSchema.parse(data));
  });

  it('leaves a failing field out and keeps its siblings parsed, with the schema defaults', () => {
    const salvaged = salvage(ProfileSchema, { name: 't', seed: -1, duration: '5s', phases: [{ type: 'steady', rate: 10, duration: '1m' }] });

    expect(salvaged).not.toHaveProperty('seed');
    expect(salvaged).toMatchObject({ duration: 5e6, phases: [{ type: 'steady', rate: 10, duration: 60e6 }], clients: [{ name: 'default', share: 1 }], warmup: 0 });
  });

  it('keeps the indexes of a list: an item that does not parse at all is undefined', () => {
    const salvaged = salvage(PhaseSchema.array(), [{ type: 'steady', rate: 'fast', duration: '1m' }, 'soon', { type: 'ramp', from: 1, to: 2, duration: 3 }]);

    expect(salvaged).toEqual([{ type: 'steady', duration: 60e6 }, undefined, { type: 'ramp', from: 1, to: 2, duration: 3e6 }]);
  });

  it('reads a mapping of an unknown variant by what every variant reads alike', () => {
    // Every phase type has a duration; only the steady one has a rate.
    expect(salvage(PhaseSchema, { type: 'plateau', rate: 10, duration: '5s' })).toEqual({ duration: 5e6 });
  });

  it('gives nothing for a value of the wrong kind', () => {
    expect(salvage(ProfileSchema, 'a profile')).toBeUndefined();
    expect(salvage(PhaseSchema, [1, 2])).toBeUndefined();
  });
});
