import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LeasedWork } from './leased-work.js';
import type { DueWork } from '../store/store.js';
import { approvalFor, openData, reviewRequest } from '../../test/helpers/review.js';
import { inProcessHub } from '../../test/helpers/in-process.js';

const HUB = { kind: 'hub' } as const;

describe('scheduled work runs once', () => {
  it('schedulers racing for one deadline (a lease that ran out, a second node) evaluate it once', async () => {
    const { hub, store, clock, close } = await inProcessHub();
    const request = reviewRequest(5_000);
    const message = {
      messageId: randomUUID(),
      role: 'ROLE_USER' as const,
      parts: [{ data: openData(request, approvalFor(request)) }],
    };
    const task = await hub.tasks.send({ caller: { kind: 'agent', handle: 'poster' }, door: HUB }, { message });
    clock.now += 6_000;

    // node-a's lease runs out and node-b claims the work; all three then run it (node-c never held it).
    expect(await store.claimDue('node-a', clock.now, clock.now + 1, 10)).toHaveLength(1);
    const [work] = await store.claimDue('node-b', clock.now + 2, clock.now + 60_000, 10);
    expect(work).toEqual({ taskId: task.id, dueAt: Date.parse(request.deadline) });
    await Promise.all(['node-a', 'node-b', 'node-c'].map((owner) => hub.tasks.runDue(work!, owner)));
    const events = await store.eventsAfter(task.id, 0, 10);
    expect(events.map((e) => Object.keys(e.event)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate']);

    // The work is gone with the write that did it: nothing is left to claim.
    const runs: DueWork[] = [];
    const worker = new LeasedWork<DueWork>({
      name: 't',
      claim: (o, n, u, l) => store.claimDue(o, n, u, l),
      key: (w) => w.taskId,
      run: async (w) => void runs.push(w),
      leaseMs: 1_000,
      batch: 10,
      pollMs: 1_000,
      clock: () => clock.now + 60_000,
    });
    worker.start();
    await worker.stop();
    expect(runs).toEqual([]);
    await close();
  });
});
