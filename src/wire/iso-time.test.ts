import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('spells each time as toISOString does, the same time again and another after it', () => {
    const times = [0, 1_796_600_665_583, 1_796_600_665_583, 1_796_600_665_584, 0, -1];
    expect(times.map(isoTime)).toEqual(times.map((ms) => new Date(ms).toISOString()));
  });

  it('refuses a time that is not one, as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(Number.NaN)).toThrow(RangeError); // not answered from the memo
  });
});
