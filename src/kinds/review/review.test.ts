import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isHubError } from '../../errors/hub-error.js';
import { openData, reviewRequest } from '../../../test/helpers/review.js';
import { inProcessHub } from '../../../test/helpers/in-process.js';

const DAY = 86_400_000;
const poster = { caller: { kind: 'agent' as const, handle: 'poster' }, door: { kind: 'hub' as const } };

describe('review quotas over days', () => {
  it('2 open at once: a third waits until one is evaluated, even on a new day', async () => {
    const { hub, store, clock, close } = await inProcessHub();
    // Deadlines are absolute: written against the hub's clock as it is at each post.
    const post = (deadlineInMs: number) => {
      const request = {
        ...reviewRequest(0),
        deadline: new Date(clock.now + deadlineInMs).toISOString(),
        title: randomUUID(),
      };
      return hub.tasks.send(poster, {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: openData(request) }] },
      });
    };
    const refusal = async (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (isHubError(e) ? e.meta['quota'] : e),
      );

    const first = await post(2 * DAY);
    await post(3 * DAY);
    clock.now += DAY; // a new day: the daily quota is fresh, but both tasks are still open
    expect(await refusal(post(3 * DAY))).toBe('review.open');
    clock.now += DAY + 1_000; // the first falls due and is evaluated: its hold is given back
    expect(await store.claimDue('test', clock.now, clock.now + 30_000, 10)).toMatchObject([{ taskId: first.id }]);
    await hub.tasks.runDue({ taskId: first.id, dueAt: clock.now }, 'test');
    expect((await hub.tasks.get(poster, first.id)).status.state).toBe('TASK_STATE_FAILED');
    await post(3 * DAY);
    expect(await refusal(post(3 * DAY))).toBe('review.open');
    await close();
  });
});
