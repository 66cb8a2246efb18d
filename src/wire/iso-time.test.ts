import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('isoTime', () => {
  it('spells each time as toISOString does, the same time again and another after it', () => {
    const times = [0, 1_796_600_665_583, 1_796_600_665_583, 1_796_600_665_584, 0, -1];
    expect(times.map(isoTime)).toEqual(times.map(iso));
  });

  it('spells every part of a day, its edges and the days around it as toISOString does', () => {
    const day = 1_796_601_600_000; // 2026-12-07T00:00:00.000Z
    const times = [day, day + 1, day + 9, day + 10, day + 99, day + 100, day + 999, day + 1000];
    for (let ms = day; ms < day + DAY_MS; ms += 3_599_997) times.push(ms); // hours, minutes and seconds of all sizes
    times.push(day + DAY_MS - 1, day + DAY_MS, day - 1, day - DAY_MS, day + 59_999, day + 3_600_000 - 1);
    for (const ms of times) expect(isoTime(ms), String(ms)).toBe(iso(ms));
  });

  it('spells times far from now as toISOString does: before 1970, past the year 9999, fractions of a millisecond', () => {
    const times = [-1, -DAY_MS - 1, -62_198_755_200_000, 253_402_300_799_999, 253_402_300_800_000, 253_402_300_800_001];
    times.push(1_796_601_600_000.5, 1_796_601_600_001, 1_796_601_600_001.9, -0.5);
    for (const ms of times) expect(isoTime(ms), String(ms)).toBe(iso(ms));
  });

  it('refuses a time that is not one, as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(Number.NaN)).toThrow(RangeError); // not answered from the memo
    expect(() => isoTime(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
