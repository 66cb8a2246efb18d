/**
 * Two store objects on one database stand for two hub processes: what one store promises must
 * hold across them: here, what one hears of the other's writes (announcements, notices, LISTEN and
 * its fallback to polling, inbox logs), and names and tokens taken through either.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgres } from '../../../test/helpers/postgres.js';
import { StoreConflict, type AgentChange, type Store, type TaskCommitted } from '../store.js';
import { openPostgresStore } from './postgres-store.js';
import { bump, eventually, openTwoStores, outcomes, sql, type TwoStores } from './two-handles.fixture.js';
import { newTask, T0 } from './task-write.fixture.js';

describe.skipIf(!testPostgres)('two stores on one PostgreSQL database: what each hears of the other', () => {
  let two: TwoStores | undefined;
  let database: TwoStores['database'];
  let a: Store;
  let b: Store;
  beforeAll(async () => void ({ database, a, b } = two = await openTwoStores('two-handles-notices')));
  afterAll(() => two?.close());

  it("announces a write through one store on the other's events, with its last sequence number and no events", async () => {
    const heardB: TaskCommitted[] = [];
    const heardA: TaskCommitted[] = [];
    const w = newTask();
    const offB = b.events.onTask((c) => c.log === w.record.id && heardB.push(c));
    const offA = a.events.onTask((c) => c.log === w.record.id && heardA.push(c));
    try {
      await a.createTask(w);
      await a.updateTask(bump(w, 'next'));
      await eventually(() =>
        expect(heardB).toEqual([
          { log: w.record.id, lastSeq: 1, events: [] },
          { log: w.record.id, lastSeq: 2, events: [] },
        ]),
      );
      // the writer heard its own commits once each, with their events (its own NOTIFY is skipped)
      expect(heardA.map((c) => [c.lastSeq, c.events.map((e) => e.seq)])).toEqual([
        [1, [1]],
        [2, [2]],
      ]);
    } finally {
      offA();
      offB();
    }
  });

  it('leaves no forward pending for a target that switched forwarding off while a write to it was waiting', async () => {
    const handle = `fw-${Math.random().toString(36).slice(2, 10)}`;
    await a.insertAgent({ handle, createdAt: 1 }, { id: `t-${handle}`, hash: `h-${handle}` });
    await a.markEndpointVerified(
      handle,
      'https://b.example/',
      { url: 'https://b.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' },
      1,
    );
    await a.setForwarding(handle, true, []);
    const w = newTask({ target: handle });
    const key = `hold-${handle}`;
    // An uncommitted charge of the same quota row holds the create back part-way through its statement.
    const raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      await raw.query('INSERT INTO quota_counters (key, window_start, used) VALUES ($1, 1, 0)', [key]);
      const creating = a.createTask({
        ...w,
        quotas: [{ key, windowStart: 1, limit: 10 }],
        forward: {
          to: handle,
          draft: () => ({
            id: `f-${w.record.id}`,
            taskId: w.record.id,
            channel: 'forward',
            seq: 1,
            to: handle,
            headers: {},
            body: '{}',
          }),
        },
      });
      await new Promise((r) => setTimeout(r, 200));
      const switching = b.setForwarding(handle, false, []);
      await new Promise((r) => setTimeout(r, 200));
      await raw.query('COMMIT');
      await Promise.all([creating, switching]);
      expect((await a.listDeliveries(w.record.id)).filter((d) => d.state === 'pending')).toEqual([]);
    } finally {
      await raw.end();
    }
  });

  it('drops notices not in its own shape (anyone connected may NOTIFY), and keeps hearing real ones', async () => {
    const heard: TaskCommitted[] = [];
    const off = b.events.onTask((c) => heard.push(c));
    try {
      for (const payload of [
        'null',
        '5',
        '"x"',
        '{"t":5}',
        '{"t":[[1,2],["a"],null]}',
        '{"h":7,"c":"tokens"}',
        '{"h":"x","c":"nonsense"}',
        'not json',
      ]) {
        await sql(database.url, "SELECT pg_notify('muster_tasks', $1), pg_notify('muster_agents', $1)", [payload]);
      }
      const w = newTask();
      await a.createTask(w);
      await eventually(() => expect(heard.map((c) => c.log)).toContain(w.record.id)); // still alive and listening
      expect(heard.every((c) => typeof c.log === 'string' && Number.isInteger(c.lastSeq))).toBe(true);
    } finally {
      off();
    }
  });

  it('announces a token revoked through one store on the other, whose findToken refuses it at once', async () => {
    const handle = `agent-${randomUUID().slice(0, 8)}`;
    await a.insertAgent({ handle, createdAt: T0 }, { id: `tok-${handle}`, hash: `hash-${handle}` });
    expect((await b.findToken(`hash-${handle}`))?.handle).toBe(handle);
    const heard: [string, AgentChange][] = [];
    const off = b.events.onAgent((h, change) => h === handle && heard.push([h, change]));
    try {
      expect(await a.revokeToken(handle, `tok-${handle}`, T0 + 1)).toBe(true);
      expect(await b.findToken(`hash-${handle}`)).toBeUndefined();
      await eventually(() => expect(heard).toEqual([[handle, 'tokens']]));
      await a.markEndpointVerified(
        handle,
        'https://agent.example',
        { url: 'https://agent.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' },
        T0 + 2,
      );
      await eventually(() =>
        expect(heard).toEqual([
          [handle, 'tokens'],
          [handle, 'record'],
        ]),
      );
    } finally {
      off();
    }
  });

  it('gives up a LISTEN connection whose server stops answering, polls, and listens again', async () => {
    const lines: string[] = [];
    const c = await openPostgresStore(database.url, {
      log: (l) => lines.push(l),
      heartbeatMs: 400,
      reconnectMs: { first: 100, most: 200 },
    });
    const heard: string[] = [];
    const off = c.events.onTask((commit) => heard.push(commit.log));
    const [listening] = await sql<{ pid: number }>(
      database.url,
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %' ORDER BY backend_start DESC LIMIT 1",
    );
    const pid = listening!.pid;
    try {
      process.kill(pid, 'SIGSTOP'); // the backend is still connected, but says nothing: a silent peer
      await eventually(() => expect(lines.join('\n')).toMatch(/lost the PostgreSQL LISTEN connection/), 5_000);
      const w = newTask();
      await a.createTask(w);
      await eventually(() => expect(heard).toContain(w.record.id), 5_000); // heard through polling meanwhile
      await eventually(() => expect(lines.join('\n')).toMatch(/listening on PostgreSQL again/), 5_000);
    } finally {
      process.kill(pid, 'SIGCONT');
      off();
      await c.close();
    }
  }, 20_000);

  it('gives a space name to exactly one of two stores creating it at once', async () => {
    const name = `space-${randomUUID()}`;
    const made = (by: string) => ({
      name,
      description: `made through ${by}`,
      claim: 'open' as const,
      orchestratorPriority: 1,
      createdAt: T0,
      updatedAt: T0,
    });
    const results = await Promise.allSettled([a.createSpace(made('a')), b.createSpace(made('b'))]);
    const { stood, refused } = outcomes(results);
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.objectContaining({ what: 'space-name' })]);
    expect(refused[0]).toBeInstanceOf(StoreConflict);
    const winner = results[0]!.status === 'fulfilled' ? 'a' : 'b';
    expect(await a.getSpace(name)).toStrictEqual(made(winner));
  });

  it('begins an inbox log only once every transaction running when it began has ended', async () => {
    const agent = `late-${randomUUID()}`;
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT count(*) FROM inbox_logs'); // a snapshot taken before the log began: such a write would log nothing
      let begun = false;
      const beginning = b.beginInboxLog(agent).then((complete) => ((begun = true), complete));
      await new Promise((r) => setTimeout(r, 300));
      expect(begun).toBe(false);
      await other.query('COMMIT');
      expect(await beginning).toBe(false);
      expect(await a.beginInboxLog(agent)).toBe(false); // begun, not complete
    } finally {
      await other.end();
    }
  });

  it('gives a first listener each task once while writes to the agent run through the other store', async () => {
    for (let round = 0; round < 3; round++) {
      const agent = `busy-${randomUUID()}`;
      // Registered, as every agent with a log is: the writes through `a` learn from its row that `b` began the log.
      await a.insertAgent({ handle: agent, createdAt: 1 }, { id: `t-${agent}`, hash: `h-${agent}` });
      const sent: string[] = [];
      let sending = true;
      const sender = (async () => {
        for (let i = 0; sending || i < 20; i++) {
          const batch = Array.from({ length: 4 }, () => newTask({ target: agent, state: 'TASK_STATE_SUBMITTED' }));
          for (const w of batch)
            w.inbox = {
              agent,
              events: [
                {
                  kind: 'task',
                  task: { id: w.record.id, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } },
                },
              ],
            };
          await Promise.all(batch.map((w) => a.createTask(w)));
          sent.push(...batch.map((w) => w.record.id));
        }
      })();
      await new Promise((r) => setTimeout(r, 20 * round));
      // As the hub's first listener does (hub/inbox.ts): begin, read the open tasks, complete.
      if (!(await b.beginInboxLog(agent))) {
        const open = await b.listTasks({
          scope: { anyOf: [{ target: { in: [agent] } }] },
          states: ['TASK_STATE_SUBMITTED'],
          order: 'rank',
          limit: 1000,
          includeArtifacts: false,
        });
        await b.completeInboxLog(
          agent,
          open.tasks.map((t) => ({
            kind: 'task' as const,
            task: { id: t.record.id, contextId: 'ctx', status: { state: t.record.state, timestamp: '' } },
          })),
        );
      }
      sending = false;
      await sender;
      const logged = (await b.inboxAfter(agent, 0, 10_000)).map((e) =>
        e.event.kind === 'task' ? e.event.task.id : '',
      );
      expect(logged.length).toBe(sent.length);
      expect(new Set(logged)).toEqual(new Set(sent));
      expect((await b.inboxAfter(agent, 0, 10_000)).map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
    }
  });

  it('writes through one store what it left out for an agent with its own input modes whose log or forwarding the other began', async () => {
    const agent = `modes-${randomUUID()}`;
    await a.insertAgent(
      { handle: agent, createdAt: 1, inputModes: ['text/plain'] },
      { id: `t-${agent}`, hash: `h-${agent}` },
    );
    await b.markEndpointVerified(
      agent,
      'https://m.example/',
      { url: 'https://m.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' },
      1,
    );
    await b.setForwarding(agent, true, []);
    if (!(await b.beginInboxLog(agent))) await b.completeInboxLog(agent, []);
    const w = newTask({ target: agent, state: 'TASK_STATE_SUBMITTED' });
    w.takes = { agent, mediaTypes: ['text/plain'], defaults: ['text/plain', 'application/json'] };
    w.inbox = {
      agent,
      events: [
        {
          kind: 'task',
          task: { id: w.record.id, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } },
        },
      ],
    };
    w.forward = {
      to: agent,
      draft: () => ({
        id: `f-${w.record.id}`,
        taskId: w.record.id,
        channel: 'forward',
        seq: 1,
        to: agent,
        headers: {},
        body: '{}',
      }),
    };
    // `a` never saw the log begin nor the agent forward: it leaves both out, is refused, and writes them.
    expect(await a.createTask(w)).toEqual({ forwarded: true });
    expect((await b.inboxAfter(agent, 0, 10)).map((e) => (e.event.kind === 'task' ? e.event.task.id : ''))).toEqual([
      w.record.id,
    ]);
    const refused = newTask(
      { target: agent, state: 'TASK_STATE_SUBMITTED' },
      { takes: { agent, mediaTypes: ['image/png'], defaults: ['text/plain', 'application/json'] } },
    );
    await expect(a.createTask(refused)).rejects.toMatchObject({ name: 'PartsRefused' });
  });

  it('keeps the first admin token hash stored through either', async () => {
    const [x, y] = await Promise.all([a.keepAdminTokenHash('hash-x'), b.keepAdminTokenHash('hash-y')]);
    expect(x).toBe(y);
    expect(await b.adminTokenHash()).toBe(x);
  });

  it('falls back to polling when the LISTEN connection drops (hearing task writes and operator token changes), says so, and listens again', async () => {
    const lines: string[] = [];
    const listening = await openPostgresStore(database.url, {
      log: (l) => lines.push(l),
      reconnectMs: { first: 2_500, most: 2_500 },
    });
    const writer = await openPostgresStore(database.url, { log: () => {} });
    const heard: TaskCommitted[] = [];
    listening.events.onTask((c) => heard.push(c));
    const operator = `op-${randomUUID().slice(0, 8)}`;
    await writer.insertOperator(
      { handle: operator, createdAt: T0 },
      { id: `${operator}-1`, hash: `hash-${operator}-1` },
    );
    const agentsHeard: [string, string][] = [];
    listening.events.onAgent((handle, change) => handle === operator && agentsHeard.push([handle, change]));
    try {
      const ended = await sql<{ ended: boolean }>(
        database.url,
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %'",
      );
      expect(ended.length).toBeGreaterThanOrEqual(2);
      await eventually(() =>
        expect(lines.some((l) => /lost the PostgreSQL LISTEN connection.*polling/.test(l))).toBe(true),
      );
      const w = newTask();
      await writer.createTask(w); // its NOTIFY has no one listening on `listening`'s side: only a poll can find it
      await eventually(() => expect(heard).toContainEqual({ log: w.record.id, lastSeq: 1, events: [] }), 3_000);
      const before = agentsHeard.length; // a poll may also tell of the operator's first token, made just before
      await writer.insertOperatorToken(operator, { id: `${operator}-2`, hash: `hash-${operator}-2` }, T0 + 1, true); // its token rotated
      await eventually(() => expect(agentsHeard.length).toBe(before + 1), 3_000);
      expect(agentsHeard.at(-1)).toEqual([operator, 'tokens']);
      expect(lines.some((l) => /listening on PostgreSQL again/.test(l))).toBe(false);
      await eventually(() => expect(lines.some((l) => /listening on PostgreSQL again/.test(l))).toBe(true), 3_000);
      const next = bump(w, 'after');
      await writer.updateTask(next);
      await eventually(() => expect(heard).toContainEqual({ log: w.record.id, lastSeq: 2, events: [] }));
    } finally {
      await listening.close();
      await writer.close();
    }
  });
});
