import { describe, expect, it } from 'vitest';
import { TurnEnds } from './turn-ends.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnEnds', () => {
  it('ends the answers of a turn in which requests arrived together, once its I/O is handled', async () => {
    const ends = new TurnEnds();
    const ended: string[] = [];
    ends.arrived();
    ends.end({ end: () => ended.push('first') });
    ends.arrived();
    ends.end({ end: () => ended.push('second') });
    await Promise.resolve();
    expect(ended).toEqual([]);
    await nextTurn();
    expect(ended).toEqual(['first', 'second']);
  });

  it('ends an answer at once when no request arrived since the last turn ended (one a commit let go)', async () => {
    const ends = new TurnEnds();
    const ended: string[] = [];
    ends.arrived();
    await nextTurn();
    ends.end({ end: () => ended.push('after a commit') });
    expect(ended).toEqual(['after a commit']);
  });
});
