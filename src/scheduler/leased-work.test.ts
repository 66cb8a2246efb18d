import { describe, expect, it } from 'vitest';
import { LeasedWork } from './leased-work.js';

describe('LeasedWork', () => {
  it('hands a failed run to onError and carries on with the rest of the batch', async () => {
    const queue = ['a', 'b', 'c'];
    const done: string[] = [];
    const errors: unknown[] = [];
    const work = new LeasedWork<string>({
      name: 'test',
      claim: async (_owner, _now, _until, limit) => queue.splice(0, limit),
      key: (item) => item,
      run: async (item) => {
        if (item === 'b') throw new Error('b broke');
        done.push(item);
      },
      leaseMs: 1000,
      batch: 10,
      pollMs: 10_000,
      onError: (e) => errors.push(e),
    });
    work.start();
    await work.stop();
    expect(done).toEqual(['a', 'c']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['b broke']);
    expect(queue).toEqual([]);
  });

  it('a slow item holds its own place only: work due after it runs while it is still running', async () => {
    const queue = ['slow'];
    const done: string[] = [];
    let release = () => {};
    const work = new LeasedWork<string>({
      name: 'test',
      claim: async (_owner, _now, _until, limit) => queue.splice(0, limit),
      key: (item) => item,
      run: async (item) => {
        if (item === 'slow') await new Promise<void>((r) => (release = r));
        done.push(item);
      },
      leaseMs: 1000,
      batch: 2,
      pollMs: 10_000,
    });
    work.start();
    await new Promise((r) => setTimeout(r, 20));
    queue.push('quick');
    work.poke();
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toEqual(['quick']);
    release();
    await work.stop();
    expect(done).toEqual(['quick', 'slow']);
  });

  it('an item claimed again while it still runs here (its lease ran out meanwhile) is not run twice', async () => {
    let runs = 0;
    let release = () => {};
    const claims = [['a'], ['a']];
    const work = new LeasedWork<string>({
      name: 'test',
      claim: async () => claims.shift() ?? [],
      key: (item) => item,
      run: async () => {
        runs += 1;
        await new Promise<void>((r) => (release = r));
      },
      leaseMs: 1000,
      batch: 4,
      pollMs: 10_000,
    });
    work.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(claims).toEqual([]); // claimed twice
    expect(runs).toBe(1);
    release();
    await work.stop();
  });

  it('claims ahead: one claim for several batches, each batch started as places free', async () => {
    const queue = Array.from({ length: 10 }, (_, i) => `item-${i}`);
    const claims: number[] = [];
    const running = new Set<string>();
    let most = 0;
    const done: string[] = [];
    const work = new LeasedWork<string>({
      name: 'test',
      claim: async (_owner, _now, _until, limit) => {
        const claimed = queue.splice(0, limit);
        if (claimed.length > 0) claims.push(claimed.length);
        return claimed;
      },
      key: (item) => item,
      run: async (item) => {
        running.add(item);
        most = Math.max(most, running.size);
        await new Promise((r) => setTimeout(r, 2));
        running.delete(item);
        done.push(item);
      },
      leaseMs: 1000,
      batch: 2,
      claimAhead: 3,
      pollMs: 10_000,
    });
    work.start();
    while (done.length < 10) await new Promise((r) => setTimeout(r, 5));
    await work.stop();
    expect(claims).toEqual([6, 4]);
    expect(most).toBe(2);
  });

  it('stop runs what was claimed ahead, rather than leave it leased', async () => {
    const queue = ['a', 'b', 'c', 'd'];
    const done: string[] = [];
    const work = new LeasedWork<string>({
      name: 'test',
      claim: async (_owner, _now, _until, limit) => queue.splice(0, limit),
      key: (item) => item,
      run: async (item) => {
        await new Promise((r) => setTimeout(r, 20));
        done.push(item);
      },
      leaseMs: 1000,
      batch: 1,
      claimAhead: 4,
      pollMs: 10_000,
    });
    work.start();
    await new Promise((r) => setTimeout(r, 5));
    await work.stop();
    expect(done.sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});
