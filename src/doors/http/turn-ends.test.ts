import { describe, expect, it } from 'vitest';
import { TurnEnds } from './turn-ends.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnEnds', () => {
  it('ends the answers of a turn in which requests arrived together, once its I/O is handled', async () => {
    const ends = new TurnEnds();
    const ended: string[] = [];
    const turn = ends.arrived();
    ends.end({ end: () => ended.push('first') }, turn);
    ends.end({ end: () => ended.push('second') }, ends.arrived());
    await Promise.resolve();
    expect(ended).toEqual([]);
    await nextTurn();
    expect(ended).toEqual(['first', 'second']);
    expect(turn).toEqual([]); // what a stream's reply keeps of its turn holds no ended answer
  });

  it('ends at once an answer ready after its turn ended (one a commit or a database let go)', async () => {
    const ends = new TurnEnds();
    const ended: string[] = [];
    const earlier = ends.arrived();
    await nextTurn();
    ends.end({ end: () => ended.push('after a commit') }, earlier);
    expect(ended).toEqual(['after a commit']);
    ends.arrived(); // a request of this turn does not hold back an answer to an earlier one
    ends.end({ end: () => ended.push('after the database') }, earlier);
    expect(ended).toEqual(['after a commit', 'after the database']);
  });
});
