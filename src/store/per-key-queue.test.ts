import { describe, expect, it } from 'vitest';
import { PerKeyQueue } from './per-key-queue.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('PerKeyQueue', () => {
  it("runs one key's work one at a time in arrival order, other keys alongside, and forgets idle keys", async () => {
    const queue = new PerKeyQueue();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const work = (name: string) => async () => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([
      queue.run('a', work('a1')),
      queue.run('a', work('a2')),
      queue.run('b', work('b1')),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1')); // b did not wait for a
    expect(most).toBe(2);
    await tick();
    expect(queue.size).toBe(0);
  });

  it('a failure reaches its caller only; the next work on the key still runs', async () => {
    const queue = new PerKeyQueue();
    const failed = queue.run('a', async () => {
      throw new Error('no');
    });
    const next = queue.run('a', async () => 'yes');
    await expect(failed).rejects.toThrow('no');
    await expect(next).resolves.toBe('yes');
  });
});
