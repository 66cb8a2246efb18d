/**
 * One of three real `muster serve` processes (A, B, C) on one PostgreSQL database killed with
 * SIGKILL under load: the other two carry on, every task a node acknowledged is readable with its
 * message, and the two still hear each other's changes.
 * Runs only when MUSTER_TEST_PG names a server (see helpers/postgres.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import { ADMIN_TOKEN, bobBase, COMPLETED, expectOnlyExpectedLogs, stateOf, threeNodes } from './helpers/many-nodes.js';
import { openSse, within, type NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

describe.skipIf(!testPostgres)('a node killed under load, of three on one PostgreSQL database', () => {
  const many = threeNodes('many_nodes_crash');
  const { nodes, respond, newTask } = many;
  let A: NodeProcess, B: NodeProcess, C: NodeProcess;
  let alice: Registered;

  beforeAll(() => {
    ({ A, B, C, alice } = many.parties());
  });

  it('10. a node killed with SIGKILL under load: the others carry on, and every acknowledged task is readable with its message', async () => {
    const senders = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => register(nodes[i % 3]!, `load-sender-${i}`, {}, ADMIN_TOKEN)),
    );
    const targets = await Promise.all(
      [1, 2, 3, 4].map((i) => register(nodes[i % 3]!, `load-target-${i}`, {}, ADMIN_TOKEN)),
    );
    const TOTAL = 300;
    const KILL_AT = 100;
    const PARALLEL = 6;
    type Outcome = {
      i: number;
      node: NodeProcess;
      sender: Registered;
      target: string;
      afterKill: boolean;
      taskId?: string;
      error?: string;
    };
    const outcomes: Outcome[] = [];
    let next = 0;
    let killed: Promise<unknown> | undefined;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        if (i === KILL_AT) {
          C.child.kill('SIGKILL');
          killed = C.exited;
        }
        const node = nodes[i % 3]!;
        const sender = senders[i % 5]!;
        const target = targets[Math.floor(i / 5) % 4]!.handle; // 20 pairs, 15 requests each
        const outcome: Outcome = { i, node, sender, target, afterKill: !C.alive };
        try {
          const { status, body } = await rpc(
            `${node.url}agents/${target}/`,
            'SendMessage',
            { message: { messageId: `load-${i}`, role: 'ROLE_USER', parts: [{ text: `load message ${i}` }] } },
            { token: sender.token },
          );
          if (status === 200 && body.result?.task?.id) outcome.taskId = body.result.task.id;
          else outcome.error = `HTTP ${status} ${JSON.stringify(body)}`;
        } catch (e) {
          outcome.error = `${(e as Error).message} ${String(((e as Error).cause as Error | undefined)?.message ?? '')}`;
        }
        outcomes.push(outcome);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(killed).toBeDefined();
    expect(await within(5_000, 'C exits', killed!)).toBe('SIGKILL');

    const survivors = outcomes.filter((o) => o.node !== C);
    expect(survivors.filter((o) => o.error).map((o) => `${o.node.name} #${o.i}: ${o.error}`)).toEqual([]);
    expect(survivors.filter((o) => o.afterKill && o.taskId).length).toBeGreaterThan(100); // they kept answering
    const deadAfterKill = outcomes.filter((o) => o.node === C && o.afterKill);
    expect(deadAfterKill.length).toBeGreaterThan(50);
    expect(deadAfterKill.filter((o) => o.taskId)).toEqual([]); // nothing answers on a dead node…
    expect(deadAfterKill.every((o) => /fetch failed|ECONNREFUSED|ECONNRESET|socket|closed/i.test(o.error ?? ''))).toBe(
      true,
    ); // …it just refuses connections

    const acknowledged = outcomes.filter((o) => o.taskId);
    expect(acknowledged.length).toBeGreaterThanOrEqual(survivors.length); // every request to A and B, and C's before it died
    const unreadable: string[] = [];
    let k = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (;;) {
          const o = acknowledged[k++];
          if (!o) return;
          const reader = k % 2 ? A : B;
          const { status, body } = await rpc(
            `${reader.url}agents/${o.target}/`,
            'GetTask',
            { id: o.taskId },
            { token: o.sender.token },
          );
          const first = body?.result?.history?.[0];
          if (
            status !== 200 ||
            body.result.id !== o.taskId ||
            first?.messageId !== `load-${o.i}` ||
            first?.parts?.[0]?.text !== `load message ${o.i}`
          ) {
            unreadable.push(
              `#${o.i} (acknowledged by ${o.node.name}) read on ${reader.name}: ${status} ${JSON.stringify(body).slice(0, 300)}`,
            );
          }
        }
      }),
    );
    expect(unreadable).toEqual([]);

    // The survivors still hear each other: a change made through A reaches a stream held on B.
    const id = await newTask(A, 'after the crash');
    const stream = await openSse(bobBase(B), 'SubscribeToTask', { id }, { token: alice.token });
    await stream.waitFor(1);
    expect((await respond(A, id, { state: COMPLETED })).status).toBe(200);
    const events = await stream.waitEnd(5_000);
    expect(events.map((e) => stateOf(e.data.result))).toEqual(['TASK_STATE_SUBMITTED', COMPLETED]);
    for (const node of [A, B]) expect((await rest(node, 'GET', 'health')).body.status).toBe('ok');
  });

  it('no node logged an error or a warning (no failed request, delivery or scheduled work)', () => {
    expectOnlyExpectedLogs(nodes);
  });
});
