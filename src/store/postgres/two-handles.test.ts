/**
 * Two store objects on one database stand for two hub processes: what one store promises must
 * hold across them (receipts, compare-and-set, quotas, leases, entry rules, announcements), with
 * nothing held in either process to help.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { QuotaExceeded, StoreConflict, type AgentChange, type DeliveryDraft, type Store, type TaskCommitted, type TaskWrite } from '../store.js';
import { MIGRATIONS } from './migrations.js';
import { NO_MIGRATION_INPUTS } from '../open-key-backfill.js';
import { migratePostgres, openPostgresStore } from './postgres-store.js';
import { newTask, T0 } from './task-write.fixture.js';

function bump(w: TaskWrite, note: string): TaskWrite {
  const r = w.record;
  const message = { messageId: `${note}-${r.id}`, role: 'ROLE_AGENT' as const, parts: [{ text: note }] };
  return {
    record: { ...r, version: r.version + 1, lastSeq: r.lastSeq + 1, updatedAt: r.updatedAt + 1, messageCount: r.messageCount + 1 },
    expectedVersion: r.version,
    newMessages: [message],
    newArtifacts: [],
    events: [{ message }],
  };
}

const draft = (taskId: string, channel: string, seq: number): DeliveryDraft => ({
  id: `${taskId}-${channel}-${seq}`, taskId, channel, seq, url: 'https://x.example/hook', headers: {}, body: '{}',
});

/** Waits until `check` passes, or fails with its last failure after `ms`. */
async function eventually(check: () => void | Promise<void>, ms = 4_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

const outcomes = (results: PromiseSettledResult<unknown>[]) => ({
  stood: results.filter((r) => r.status === 'fulfilled').length,
  refused: results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error),
});

async function sql<R = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

describe.skipIf(!testPostgres)('two stores on one PostgreSQL database', () => {
  let database: { url: string; drop: () => Promise<void> };
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    database = await freshPostgresDatabase('two-handles');
    // Quiet: the polling test below also cuts these stores' LISTEN connections.
    [a, b] = [await openPostgresStore(database.url, { log: () => {} }), await openPostgresStore(database.url, { log: () => {} })];
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('keeps one write per receipt key across both', async () => {
    const receipt = (taskId: string) => ({ scope: 'two', key: 'same', fingerprint: 'f', result: { taskId } });
    const [x, y] = [newTask(), newTask()];
    const results = await Promise.allSettled([a.createTask({ ...x, receipt: receipt(x.record.id) }), b.createTask({ ...y, receipt: receipt(y.record.id) })]);
    const { stood, refused } = outcomes(results);
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.objectContaining({ what: 'receipt' })]);
    const winner = results[0]!.status === 'fulfilled' ? x : y;
    const loser = winner === x ? y : x;
    expect(await b.getReceipt('two', 'same')).toMatchObject({ result: { taskId: winner.record.id } });
    expect(await a.getTask(loser.record.id, { includeArtifacts: false })).toBeUndefined();
    expect(await a.eventsAfter(loser.record.id, 0, 10)).toEqual([]);
  });

  it('runs works under one lock one at a time across both: of checks-then-creates racing through both, one creates', async () => {
    for (let round = 0; round < 5; round++) {
      const context = `locked-${randomUUID()}`;
      const scope = { anyOf: [{ contextId: { in: [context] } }] };
      const works = [a, b, a, b, a, b].map((store) =>
        store.underLock(`lock-${context}`, async (tasks) => {
          if ((await tasks.listTasks({ scope, limit: 5, includeArtifacts: false })).tasks.length > 0) return 'found';
          await tasks.createTask(newTask({ contextId: context }));
          return 'created';
        }),
      );
      expect((await Promise.all(works)).filter((w) => w === 'created')).toHaveLength(1);
      expect((await b.listTasks({ scope, limit: 5, includeArtifacts: false })).tasks).toHaveLength(1);
    }
  });

  it('lets exactly one of two compare-and-set updates from one version win', async () => {
    const w = newTask();
    await a.createTask(w);
    const results = await Promise.allSettled([a.updateTask(bump(w, 'via-a')), b.updateTask(bump(w, 'via-b'))]);
    const { stood, refused } = outcomes(results);
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.objectContaining({ what: 'version' })]);
    const got = await b.getTask(w.record.id, { includeArtifacts: false });
    expect(got?.record.version).toBe(2);
    expect(got?.history).toHaveLength(2);
    expect((await a.eventsAfter(w.record.id, 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('never lets a quota window pass its limit, however the charges are spread', async () => {
    const limit = 7;
    const quota = { key: `q-${randomUUID()}`, windowStart: T0, limit };
    const writes = Array.from({ length: 2 * limit }, (_, i) => (i % 2 ? a : b).createTask({ ...newTask(), quotas: [quota] }));
    const { stood, refused } = outcomes(await Promise.allSettled(writes));
    expect(stood).toBe(limit);
    expect(refused).toHaveLength(limit);
    expect(refused.every((e) => e instanceof QuotaExceeded)).toBe(true);
    expect(await sql(database.url, 'SELECT used FROM quota_counters WHERE key = $1', [quota.key])).toEqual([{ used: limit }]);
  });

  it('writes exactly max entries however many authors race through both', async () => {
    const w = newTask();
    await a.createTask(w);
    const max = 5;
    const entry = (author: string) => ({
      entry: { taskId: w.record.id, author, id: `e-${author}`, body: { by: author }, createdAt: T0 }, whileState: 'TASK_STATE_WORKING' as const, max,
    });
    const writes = Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).addEntry(entry(`author-${i}`)));
    const { stood, refused } = outcomes(await Promise.allSettled(writes));
    expect(stood).toBe(max);
    expect(refused.every((e) => e instanceof StoreConflict && e.what === 'entry-full')).toBe(true);
    expect(await b.entries(w.record.id)).toHaveLength(max);
    const positions = await sql<{ position: number }>(database.url, 'SELECT position FROM task_entries WHERE task_id = $1 ORDER BY position', [w.record.id]);
    expect(positions.map((p) => p.position)).toEqual([0, 1, 2, 3, 4]);
    // one author racing itself through both stores gets one entry
    const other = newTask();
    await b.createTask(other);
    const same = { ...entry('solo'), entry: { ...entry('solo').entry, taskId: other.record.id } };
    const twice = outcomes(await Promise.allSettled([a.addEntry(same), b.addEntry(same)]));
    expect(twice.stood).toBe(1);
    expect(twice.refused).toEqual([expect.objectContaining({ what: 'entry-exists' })]);
  });

  it('lets one of two updates that each carry an entry stand, under the entry rule', async () => {
    const w = newTask();
    await a.createTask(w);
    const answer = (author: string) => ({
      ...bump(w, author),
      entry: { entry: { taskId: w.record.id, author, id: `e-${author}`, body: {}, createdAt: T0 }, whileState: 'TASK_STATE_WORKING' as const, max: 1 },
    });
    const { stood, refused } = outcomes(await Promise.allSettled([a.updateTask(answer('x')), b.updateTask(answer('y'))]));
    expect(stood).toBe(1);
    expect(refused).toEqual([expect.any(StoreConflict)]);
    expect(['version', 'entry-full']).toContain((refused[0] as StoreConflict).what);
    expect(await a.entries(w.record.id)).toHaveLength(1);
    expect((await b.getTask(w.record.id, { includeArtifacts: false }))?.record.version).toBe(2);
  });

  it('leases each item of due work to one of two concurrent claimers', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => newTask({}, { dueAt: T0 + i }));
    for (const w of tasks) await a.createTask(w);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a.claimDue('owner-a', T0 + 100, T0 + 10_000, 5) : b.claimDue('owner-b', T0 + 100, T0 + 10_000, 5))),
    );
    const claimed = claims.flat().map((d) => d.taskId);
    expect(new Set(claimed).size).toBe(claimed.length); // nothing twice
    expect(new Set(claimed)).toEqual(new Set(tasks.map((t) => t.record.id)));
    for (const [i, batch] of claims.entries()) for (const d of batch) await (i % 2 ? a : b).finishDue(d.taskId, i % 2 ? 'owner-a' : 'owner-b');
    expect(await a.nextDue()).toBeUndefined();
  });

  it('passes an expired lease on due work to the other, and only its new holder finishes it', async () => {
    const w = newTask({}, { dueAt: T0 + 1_000 });
    await a.createTask(w);
    expect(await a.claimDue('owner-a', T0 + 1_000, T0 + 1_010, 10)).toEqual([{ taskId: w.record.id, dueAt: T0 + 1_000 }]);
    expect(await b.claimDue('owner-b', T0 + 1_005, T0 + 2_000, 10)).toEqual([]); // still leased
    expect(await b.claimDue('owner-b', T0 + 1_020, T0 + 2_000, 10)).toEqual([{ taskId: w.record.id, dueAt: T0 + 1_000 }]);
    await a.finishDue(w.record.id, 'owner-a'); // no longer the holder: nothing happens
    expect(await b.nextDue()).toBe(T0 + 1_000);
    // a write by the old holder is refused whole; the new holder's stands and removes the work
    await expect(a.updateTask({ ...bump(w, 'late'), dueDone: 'owner-a' })).rejects.toMatchObject({ what: 'lease' });
    expect((await a.getTask(w.record.id, { includeArtifacts: false }))?.record.version).toBe(1);
    await b.updateTask({ ...bump(w, 'done'), dueDone: 'owner-b' });
    expect(await a.nextDue()).toBeUndefined();
  });

  it('leases each delivery once, one per channel in order, and refuses an outcome from anyone but the holder', async () => {
    const now = T0 + 5_000;
    const tasks = Array.from({ length: 12 }, () => newTask({ updatedAt: now }));
    for (const w of tasks) await a.createTask({ ...w, deliveries: [draft(w.record.id, 'ch', 1), draft(w.record.id, 'ch', 2), draft(w.record.id, 'other', 1)] });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).claimDeliveries(i % 2 ? 'owner-a' : 'owner-b', now, now + 1_000, 6)),
    );
    const claimed = claims.flat();
    expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length);
    expect(claimed).toHaveLength(24); // seq 2 of each 'ch' waits for seq 1
    expect(claimed.every((d) => d.seq === 1)).toBe(true);
    const first = claims.findIndex((c) => c.some((d) => d.channel === 'ch'));
    const held = claims[first]!.find((d) => d.channel === 'ch')!; // one with a seq 2 waiting behind it
    const [holder, other] = first % 2 ? [a, b] : [b, a];
    const [owner, stranger] = first % 2 ? ['owner-a', 'owner-b'] : ['owner-b', 'owner-a'];
    const outcome = { state: 'delivered' as const, attempts: 1, nextAt: now, lastAttemptAt: now, lastStatus: 200 };
    expect(await other.finishDelivery(held.id, stranger, outcome)).toBe(false);
    expect(await holder.finishDelivery(held.id, owner, outcome)).toBe(true);
    // with seq 1 delivered, seq 2 of that channel is due; an expired lease passes to the other owner
    const next = await other.claimDeliveries(stranger, now + 2_000, now + 3_000, 100);
    expect(next.filter((d) => d.taskId === held.taskId && d.channel === held.channel).map((d) => d.seq)).toEqual([2]);
    expect(next.filter((d) => d.seq === 1)).toHaveLength(23); // every other seq 1 had its lease run out
    expect(await holder.finishDelivery(next[0]!.id, owner, outcome)).toBe(false);
    for (const d of next) expect(await other.finishDelivery(d.id, stranger, outcome)).toBe(true);
  });

  it("announces a write through one store on the other's events, with its last sequence number and no events", async () => {
    const heardB: TaskCommitted[] = [];
    const heardA: TaskCommitted[] = [];
    const w = newTask();
    const offB = b.events.onTask((c) => c.log === w.record.id && heardB.push(c));
    const offA = a.events.onTask((c) => c.log === w.record.id && heardA.push(c));
    try {
      await a.createTask(w);
      await a.updateTask(bump(w, 'next'));
      await eventually(() => expect(heardB).toEqual([{ log: w.record.id, lastSeq: 1, events: [] }, { log: w.record.id, lastSeq: 2, events: [] }]));
      // the writer heard its own commits once each, with their events (its own NOTIFY is skipped)
      expect(heardA.map((c) => [c.lastSeq, c.events.map((e) => e.seq)])).toEqual([[1, [1]], [2, [2]]]);
    } finally {
      offA();
      offB();
    }
  });

  it('leaves no forward pending for a target that switched forwarding off while a write to it was waiting', async () => {
    const handle = `fw-${Math.random().toString(36).slice(2, 10)}`;
    await a.insertAgent({ handle, createdAt: 1 }, { id: `t-${handle}`, hash: `h-${handle}` });
    await a.markEndpointVerified(handle, 'https://b.example/', { url: 'https://b.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' }, 1);
    await a.setForwarding(handle, true, []);
    const w = newTask({ target: handle });
    const key = `hold-${handle}`;
    // An uncommitted charge of the same quota row holds the create back part-way through its statement.
    const raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      await raw.query('INSERT INTO quota_counters (key, window_start, used) VALUES ($1, 1, 0)', [key]);
      const creating = a.createTask({ ...w, quotas: [{ key, windowStart: 1, limit: 10 }], forward: { to: handle, draft: () => ({ id: `f-${w.record.id}`, taskId: w.record.id, channel: 'forward', seq: 1, to: handle, headers: {}, body: '{}' }) } });
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
      for (const payload of ['null', '5', '"x"', '{"t":5}', '{"t":[[1,2],["a"],null]}', '{"h":7,"c":"tokens"}', '{"h":"x","c":"nonsense"}', 'not json']) {
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
      await a.markEndpointVerified(handle, 'https://agent.example', { url: 'https://agent.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' }, T0 + 2);
      await eventually(() => expect(heard).toEqual([[handle, 'tokens'], [handle, 'record']]));
    } finally {
      off();
    }
  });

  it('gives up a LISTEN connection whose server stops answering, polls, and listens again', async () => {
    const lines: string[] = [];
    const c = await openPostgresStore(database.url, { log: (l) => lines.push(l), heartbeatMs: 400, reconnectMs: { first: 100, most: 200 } });
    const heard: string[] = [];
    const off = c.events.onTask((commit) => heard.push(commit.log));
    const [listening] = await sql<{ pid: number }>(database.url, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %' ORDER BY backend_start DESC LIMIT 1");
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
    const made = (by: string) => ({ name, description: `made through ${by}`, claim: 'open' as const, orchestratorPriority: 1, createdAt: T0, updatedAt: T0 });
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
          for (const w of batch) w.inbox = { agent, events: [{ kind: 'task', task: { id: w.record.id, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } } }] };
          await Promise.all(batch.map((w) => a.createTask(w)));
          sent.push(...batch.map((w) => w.record.id));
        }
      })();
      await new Promise((r) => setTimeout(r, 20 * round));
      // As the hub's first listener does (hub/inbox.ts): begin, read the open tasks, complete.
      if (!(await b.beginInboxLog(agent))) {
        const open = await b.listTasks({ scope: { anyOf: [{ target: { in: [agent] } }] }, states: ['TASK_STATE_SUBMITTED'], order: 'rank', limit: 1000, includeArtifacts: false });
        await b.completeInboxLog(agent, open.tasks.map((t) => ({ kind: 'task' as const, task: { id: t.record.id, contextId: 'ctx', status: { state: t.record.state, timestamp: '' } } })));
      }
      sending = false;
      await sender;
      const logged = (await b.inboxAfter(agent, 0, 10_000)).map((e) => (e.event.kind === 'task' ? e.event.task.id : ''));
      expect(logged.length).toBe(sent.length);
      expect(new Set(logged)).toEqual(new Set(sent));
      expect((await b.inboxAfter(agent, 0, 10_000)).map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
    }
  });

  it("writes through one store what it left out for an agent with its own input modes whose log or forwarding the other began", async () => {
    const agent = `modes-${randomUUID()}`;
    await a.insertAgent({ handle: agent, createdAt: 1, inputModes: ['text/plain'] }, { id: `t-${agent}`, hash: `h-${agent}` });
    await b.markEndpointVerified(agent, 'https://m.example/', { url: 'https://m.example/rpc', protocol: 'JSONRPC/1.0', follow: 'polling' }, 1);
    await b.setForwarding(agent, true, []);
    if (!(await b.beginInboxLog(agent))) await b.completeInboxLog(agent, []);
    const w = newTask({ target: agent, state: 'TASK_STATE_SUBMITTED' });
    w.takes = { agent, mediaTypes: ['text/plain'], defaults: ['text/plain', 'application/json'] };
    w.inbox = { agent, events: [{ kind: 'task', task: { id: w.record.id, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } } }] };
    w.forward = { to: agent, draft: () => ({ id: `f-${w.record.id}`, taskId: w.record.id, channel: 'forward', seq: 1, to: agent, headers: {}, body: '{}' }) };
    // `a` never saw the log begin nor the agent forward: it leaves both out, is refused, and writes them.
    expect(await a.createTask(w)).toEqual({ forwarded: true });
    expect((await b.inboxAfter(agent, 0, 10)).map((e) => (e.event.kind === 'task' ? e.event.task.id : ''))).toEqual([w.record.id]);
    const refused = newTask({ target: agent, state: 'TASK_STATE_SUBMITTED' }, { takes: { agent, mediaTypes: ['image/png'], defaults: ['text/plain', 'application/json'] } });
    await expect(a.createTask(refused)).rejects.toMatchObject({ name: 'PartsRefused' });
  });

  it('keeps the first admin token hash stored through either', async () => {
    const [x, y] = await Promise.all([a.keepAdminTokenHash('hash-x'), b.keepAdminTokenHash('hash-y')]);
    expect(x).toBe(y);
    expect(await b.adminTokenHash()).toBe(x);
  });

  it('falls back to polling when the LISTEN connection drops (hearing task writes and operator token changes), says so, and listens again', async () => {
    const lines: string[] = [];
    const listening = await openPostgresStore(database.url, { log: (l) => lines.push(l), reconnectMs: { first: 2_500, most: 2_500 } });
    const writer = await openPostgresStore(database.url, { log: () => {} });
    const heard: TaskCommitted[] = [];
    listening.events.onTask((c) => heard.push(c));
    const operator = `op-${randomUUID().slice(0, 8)}`;
    await writer.insertOperator({ handle: operator, createdAt: T0 }, { id: `${operator}-1`, hash: `hash-${operator}-1` });
    const agentsHeard: [string, string][] = [];
    listening.events.onAgent((handle, change) => handle === operator && agentsHeard.push([handle, change]));
    try {
      const ended = await sql<{ ended: boolean }>(
        database.url,
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'muster-listen %'",
      );
      expect(ended.length).toBeGreaterThanOrEqual(2);
      await eventually(() => expect(lines.some((l) => /lost the PostgreSQL LISTEN connection.*polling/.test(l))).toBe(true));
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

describe.skipIf(!testPostgres)('opening an empty PostgreSQL database', () => {
  it('comes up in three processes at once, migrating once', async () => {
    const database = await freshPostgresDatabase('three-opens');
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(database.url)));
      const applied = await sql<{ version: number }>(database.url, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(applied.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migratePostgres(database.url, NO_MIGRATION_INPUTS)).toEqual({ applied: [] });
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await database.drop();
    }
  });
});
