import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { contribution, dataParams, openData, reviewRequest } from './helpers/review.js';

let hub: TestHub;
let poster: Registered, a: Registered, b: Registered;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1' });
  [poster, a, b] = await registerAll(hub, 'rs-poster', 'rs-a', 'rs-b');
});
afterAll(() => hub.destroy());

/** The task's events as stored, read beside the running hub. */
async function storedEvents(id: string): Promise<string[]> {
  const rows = await hub.db.rows('SELECT body FROM events WHERE task_id = ? ORDER BY seq', id);
  return rows.map(({ body }) => Object.keys(typeof body === 'string' ? JSON.parse(body) : (body as object))[0]!);
}

describe('evaluation across a restart', () => {
  it('a deadline that passed while the hub was down is evaluated once, within 2 s of start-up', async () => {
    const request = reviewRequest(1_500, { question: 'Evaluated after a restart?' });
    const posted = await rpc(hub.url, 'SendMessage', dataParams(openData(request)), { token: poster.token });
    const id = posted.body.result.task.id;
    await rpc(hub.url, 'SendMessage', dataParams(contribution('source_supported'), id), { token: a.token });
    await rpc(hub.url, 'SendMessage', dataParams(contribution('source_unclear'), id), { token: b.token });

    // Down across the deadline: nothing may be evaluated while no hub runs.
    const restarting = hub.restart(2_500);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await storedEvents(id)).toEqual(['task']);
    await restarting;
    const startedAt = Date.now();

    let task: any;
    do {
      task = (await rpc(hub.url, 'GetTask', { id })).body.result;
      if (task.status.state === 'TASK_STATE_WORKING') await new Promise((r) => setTimeout(r, 50));
    } while (task.status.state === 'TASK_STATE_WORKING' && Date.now() - startedAt < 5_000);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[1].data).toMatchObject({ outcome: 'contested', contribution_count: 2 });

    // Once: a second restart finds nothing left to do.
    await hub.restart();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await storedEvents(id)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    expect((await rpc(hub.url, 'GetTask', { id })).body.result.artifacts).toHaveLength(1);
  });

  it('a restart just before the deadline: the deadline is kept and the evaluation runs once', async () => {
    const request = reviewRequest(1_200, { question: 'Evaluated once around a restart?' });
    const posted = await rpc(hub.url, 'SendMessage', dataParams(openData(request)), { token: poster.token });
    const id = posted.body.result.task.id;
    await rpc(hub.url, 'SendMessage', dataParams(contribution(), id), { token: a.token });
    await rpc(hub.url, 'SendMessage', dataParams(contribution(), id), { token: b.token });
    await new Promise((r) => setTimeout(r, 900));
    await hub.restart(50);
    await new Promise((r) => setTimeout(r, 2_500));
    const task = (await rpc(hub.url, 'GetTask', { id })).body.result;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(Date.parse(task.status.timestamp) - Date.parse(request.deadline)).toBeLessThan(2_000);
    expect(await storedEvents(id)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
  });
});
