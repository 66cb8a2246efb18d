/**
 * The store contract as a suite: every Store implementation runs it against a real database
 * (an SQLite file, and PostgreSQL). Nothing here knows which one it is talking to.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../a2a/types.js';
import { AgentPaused, HOLD_WINDOW, pushChannel, QuotaExceeded, StoreConflict, TokenNotLive, type DeliveryDraft, type Store, type TaskRecord, type TaskWrite } from './store.js';
import { taskScopes } from '../hub/view.js';
import { scopeAt } from '../hub/view-scopes.fixture.js';

const message = (id: string, text = id): Message => ({ messageId: id, role: 'ROLE_USER', parts: [{ text }] });

let seq = 0;
function newTask(over: Partial<TaskRecord> = {}): TaskWrite {
  const now = 1_700_000_000_000 + seq++;
  const record: TaskRecord = {
    id: `task-${seq}-${Math.random().toString(36).slice(2)}`,
    kind: 'direct',
    contextId: 'ctx',
    sender: 'a',
    target: 'b',
    visibility: 'participants',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: now,
    createdAt: now,
    updatedAt: now,
    messageCount: 1,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
    ...over,
  };
  return { record, newMessages: [message(`m-${record.id}`)], newArtifacts: [], events: [{ task: { id: record.id, contextId: 'ctx', status: { state: record.state, timestamp: '' } } }] };
}

function bump(w: TaskWrite, over: Partial<TaskRecord> = {}, extra: Partial<TaskWrite> = {}): TaskWrite {
  const r = w.record;
  return {
    record: { ...r, version: r.version + 1, lastSeq: r.lastSeq + 1, updatedAt: r.updatedAt + 1, messageCount: r.messageCount + 1, ...over },
    expectedVersion: r.version,
    newMessages: [message(`follow-${r.version}`)],
    newArtifacts: [],
    events: [{ message: message(`follow-${r.version}`) }],
    ...extra,
  };
}

const draft = (taskId: string, channel: string, seq: number): DeliveryDraft => ({
  id: `${taskId}-${channel}-${seq}`,
  taskId,
  channel,
  seq,
  url: 'https://x.example/hook',
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

export function storeSuite(name: string, open: () => Promise<{ store: Store; reopen: () => Promise<Store> }>): void {
  describe(`store contract: ${name}`, () => {
    it('stores agents and finds live tokens by hash only', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'ann', name: 'Ann', createdAt: 1 }, { id: 't1', hash: 'h1' });
      expect(await store.getAgent('ann')).toEqual({ handle: 'ann', name: 'Ann', createdAt: 1 });
      expect((await store.findToken('h1'))?.handle).toBe('ann');
      await expect(store.insertAgent({ handle: 'ann', createdAt: 2 }, { id: 't2', hash: 'h2' })).rejects.toBeInstanceOf(StoreConflict);
      expect(await store.findToken('h2')).toBeUndefined();
      await store.insertToken('ann', { id: 't3', hash: 'h3' }, 5, true);
      expect(await store.findToken('h1')).toBeUndefined();
      expect((await store.findToken('h3'))?.id).toBe('t3');
      expect(await store.revokeToken('ann', 't3', 6)).toBe(true);
      expect(await store.findToken('h3')).toBeUndefined();
      expect((await store.listTokens('ann')).map((t) => [t.id, t.revokedAt !== undefined])).toEqual([['t1', true], ['t3', true]]);
      await store.close();
    });

    it('checks a live token given to a read or write in that read or write: a revoked one gets nothing, and nothing is written', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'tia', createdAt: 1 }, { id: 'tt1', hash: 'live-hash' });
      const created = newTask();
      await store.createTask({ ...created, liveToken: 'live-hash' });
      const full = { includeArtifacts: true, liveToken: 'live-hash' };
      expect((await store.getTask(created.record.id, full))?.record.id).toBe(created.record.id);
      expect(await store.getTask('no-such-task', full)).toBeUndefined();
      await store.updateTask({ ...bump(created), liveToken: 'live-hash' });

      expect(await store.revokeToken('tia', 'tt1', 2)).toBe(true);
      const dead = { liveToken: 'live-hash' };
      await expect(store.getTask(created.record.id, { ...full, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      await expect(store.getTask('no-such-task', { ...full, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      await expect(store.getTask(created.record.id, { includeArtifacts: false, liveToken: 'never-issued' })).rejects.toBeInstanceOf(TokenNotLive);
      const refused = newTask();
      const receipt = { scope: 'tia', key: 'k', fingerprint: 'f', result: { taskId: refused.record.id } };
      await expect(store.createTask({ ...refused, receipt, quotas: [{ key: 'q', windowStart: 0, limit: 5 }], ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      const later = bump(bump(created));
      await expect(store.updateTask({ ...later, expectedVersion: 2, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('tia', 'k')).toBeUndefined();
      expect(await store.quotaUsed('q', 0)).toBe(0);
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))?.record.version).toBe(2);
      await store.close();
    });

    it('checks a paused agent given to a write (unlessPaused) in that write: refused with when and by whom, and nothing is written', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'pia', createdAt: 1 }, { id: 'tp1', hash: 'pia-hash' });
      const before = newTask({ target: 'pia' });
      await store.createTask({ ...before, unlessPaused: 'pia' });
      await store.setPause('pia', { at: 1_234, by: 'admin' });
      const refused = newTask({ target: 'pia' });
      const receipt = { scope: 'sender', key: 'kp', fingerprint: 'f', result: { taskId: refused.record.id } };
      const write = store.createTask({ ...refused, receipt, quotas: [{ key: 'qp', windowStart: 0, limit: 5 }], unlessPaused: 'pia' });
      await expect(write).rejects.toBeInstanceOf(AgentPaused);
      await expect(write).rejects.toMatchObject({ agent: { handle: 'pia', paused: { at: 1_234, by: 'admin' } } });
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('sender', 'kp')).toBeUndefined();
      expect(await store.quotaUsed('qp', 0)).toBe(0);
      await store.setPause('pia', undefined);
      await store.createTask({ ...refused, unlessPaused: 'pia' });
      expect((await store.getTask(refused.record.id, { includeArtifacts: false }))?.record.id).toBe(refused.record.id);
      await store.close();
    });

    it('writes a task, its history and artifacts; updates are compare-and-set on the version', async () => {
      const { store } = await open();
      const created = newTask();
      await store.createTask(created);
      const next = bump(created, { state: 'TASK_STATE_WORKING', artifactCount: 1 }, { newArtifacts: [{ artifactId: 'x', parts: [{ text: 'art' }] }] });
      await store.updateTask(next);
      await expect(store.updateTask(bump(created))).rejects.toMatchObject({ what: 'version' });
      const got = await store.getTask(created.record.id, { includeArtifacts: true });
      expect(got?.record.state).toBe('TASK_STATE_WORKING');
      expect(got?.history.map((m) => m.messageId)).toEqual([`m-${created.record.id}`, 'follow-1']);
      expect(got?.artifacts).toEqual([{ artifactId: 'x', parts: [{ text: 'art' }] }]);
      const last = await store.getTask(created.record.id, { includeArtifacts: false, historyLength: 1 });
      expect(last?.history.map((m) => m.messageId)).toEqual(['follow-1']);
      expect(last?.artifacts).toEqual([]);
      await expect(store.createTask(created)).rejects.toMatchObject({ what: 'task-id' });
      await store.close();
    });

    it('keeps one write per receipt key: within one batch, and after the store is reopened', async () => {
      const { store, reopen } = await open();
      const receipt = (key: string, taskId: string) => ({ scope: 'r', key, fingerprint: 'f', result: { taskId } });
      const [a, b] = [newTask(), newTask()];
      const results = await Promise.allSettled([
        store.createTask({ ...a, receipt: receipt('same', a.record.id) }),
        store.createTask({ ...b, receipt: receipt('same', b.record.id) }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ what: 'receipt' });
      expect(await store.getTask(b.record.id, { includeArtifacts: false })).toBeUndefined();
      await store.close();

      const again = await reopen();
      expect(await again.getReceipt('r', 'same')).toEqual(receipt('same', a.record.id));
      const c = newTask();
      await expect(again.createTask({ ...c, receipt: receipt('same', c.record.id) })).rejects.toMatchObject({ what: 'receipt' });
      await again.createTask({ ...c, receipt: { ...receipt('same', c.record.id), scope: 'another caller' } });
      expect(await again.getReceipt('another caller', 'same')).toMatchObject({ result: { taskId: c.record.id } });
      await again.close();
    });

    it('rolls the whole write back when a quota is over or a receipt exists', async () => {
      const { store } = await open();
      const quota = { key: 'q|a', windowStart: 0, limit: 1 };
      const first = newTask();
      await store.createTask({ ...first, quotas: [quota], receipt: { scope: 's', key: 'k', fingerprint: 'f', result: { taskId: first.record.id } } });
      const over = newTask();
      await expect(store.createTask({ ...over, quotas: [quota] })).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.getTask(over.record.id, { includeArtifacts: false })).toBeUndefined();
      const replayed = newTask();
      await expect(store.createTask({ ...replayed, receipt: { scope: 's', key: 'k', fingerprint: 'g', result: {} } })).rejects.toMatchObject({ what: 'receipt' });
      expect(await store.getTask(replayed.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('s', 'k')).toEqual({ scope: 's', key: 'k', fingerprint: 'f', result: { taskId: first.record.id } });
      // a refused write in the same batch as a good one leaves the good one intact
      const good = newTask();
      const results = await Promise.allSettled([store.createTask(good), store.createTask({ ...newTask(), quotas: [quota] })]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect(await store.getTask(good.record.id, { includeArtifacts: false })).toBeDefined();
      await store.close();
    });

    it('lists by scope with keyset pages, newest update first, and counts the total', async () => {
      const { store } = await open();
      const writes = [
        newTask({ sender: 'p', target: 'q' }),
        newTask({ sender: 'q', target: 'p' }),
        newTask({ sender: 'p', target: 'r' }),
        newTask({ sender: 'r', target: 'q', state: 'TASK_STATE_COMPLETED' }),
        newTask({ kind: 'review', sender: 'r', target: undefined, visibility: 'public', state: 'TASK_STATE_WORKING' }),
      ];
      for (const w of writes) await store.createTask(w);
      const ids = (page: { tasks: { record: TaskRecord }[] }) => page.tasks.map((t) => t.record.id);
      const [pq, qp, pr, rq, pub] = writes.map((w) => w.record.id);
      const between = await store.listTasks({ scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'agent', handle: 'q' }), limit: 10, includeArtifacts: false });
      expect(ids(between)).toEqual([qp, pq]);
      // what p sees at the hub: the public task and its own private ones, never r's private task to q
      const visible = await store.listTasks({ scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'hub' }), limit: 2, includeArtifacts: false });
      expect(ids(visible)).toEqual([pub, pr]);
      expect(visible.total).toBe(4);
      expect(visible.hasMore).toBe(true);
      const rest = await store.listTasks({ scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'hub' }), limit: 2, includeArtifacts: false, after: visible.tasks[1]!.record });
      expect(ids(rest)).toEqual([qp, pq]);
      expect(rest.hasMore).toBe(false);
      const open_ = await store.listTasks({ scope: taskScopes.public(), states: ['TASK_STATE_WORKING'], limit: 5, includeArtifacts: false });
      expect(ids(open_)).toEqual([pub]);
      // r's sent list holds the task r sent to q, not the public task r posted (it has no target)
      expect(ids(await store.listTasks({ scope: taskScopes.sent('r'), limit: 5, includeArtifacts: false }))).toEqual([rq]);
      const done = await store.listTasks({ scope: taskScopes.inbox('q'), states: ['TASK_STATE_COMPLETED'], limit: 5, includeArtifacts: false });
      expect(ids(done)).toEqual([rq]);
      await store.close();
    });

    it('writes one sealed entry per author under its rule, leaving the task row untouched', async () => {
      const { store } = await open();
      const w = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(w);
      const taskId = w.record.id;
      const entry = (author: string) => ({ entry: { taskId, author, id: `e-${author}`, body: { verdict: author }, createdAt: 5 }, whileState: 'TASK_STATE_WORKING' as const, max: 2 });
      await store.addEntry({ ...entry('a'), receipt: { scope: 's', key: 'a', fingerprint: 'f', result: { taskId } }, quotas: [{ key: 'q', windowStart: 1, limit: 5 }] });
      await expect(store.addEntry(entry('a'))).rejects.toMatchObject({ what: 'entry-exists' });
      await store.addEntry(entry('b'));
      await expect(store.addEntry(entry('c'))).rejects.toMatchObject({ what: 'entry-full' });
      expect((await store.entries(taskId)).map((e) => [e.author, e.body])).toEqual([['a', { verdict: 'a' }], ['b', { verdict: 'b' }]]);
      expect((await store.entryOf(taskId, 'b'))?.id).toBe('e-b');
      expect(await store.entryOf(taskId, 'c')).toBeUndefined();
      expect((await store.getTask(taskId, { includeArtifacts: false }))?.record).toEqual(w.record);
      expect(await store.eventsAfter(taskId, 0, 10)).toHaveLength(1);
      // a quota over its limit rolls the entry back; a task that moved on takes no entry
      const other = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(other);
      const mine = { entry: { taskId: other.record.id, author: 'a', id: 'x', body: {}, createdAt: 6 }, whileState: 'TASK_STATE_WORKING' as const, max: 5 };
      await expect(store.addEntry({ ...mine, quotas: [{ key: 'q', windowStart: 1, limit: 1 }] })).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.entries(other.record.id)).toEqual([]);
      await store.updateTask(bump(other, { state: 'TASK_STATE_COMPLETED' }));
      await expect(store.addEntry(mine)).rejects.toMatchObject({ what: 'entry-closed' });
      // an evaluation that read n entries does not hold once there are more
      const third = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(third);
      await store.addEntry({ ...mine, entry: { ...mine.entry, taskId: third.record.id } });
      await expect(store.updateTask(bump(third, {}, { entriesSeen: 0 }))).rejects.toMatchObject({ what: 'version' });
      await store.updateTask(bump(third, {}, { entriesSeen: 1 }));
      await store.close();
    });

    it('leases due work once, and forgets it with the write that does it', async () => {
      const { store } = await open();
      const a = newTask();
      const b = newTask();
      expect(await store.nextDue()).toBeUndefined();
      await store.createTask({ ...b, dueAt: 200 });
      expect(await store.nextDue()).toBe(200);
      await store.createTask({ ...a, dueAt: 100 });
      expect(await store.nextDue()).toBe(100);
      expect(await store.claimDue('me', 50, 1_000, 10)).toEqual([]);
      expect(await store.claimDue('me', 150, 1_000, 10)).toEqual([{ taskId: a.record.id, dueAt: 100 }]);
      expect(await store.claimDue('you', 250, 1_000, 10)).toEqual([{ taskId: b.record.id, dueAt: 200 }]); // a is leased
      await expect(store.updateTask(bump(a, {}, { dueDone: 'you' }))).rejects.toMatchObject({ what: 'lease' }); // not the holder
      expect((await store.getTask(a.record.id, { includeArtifacts: false }))?.record.version).toBe(a.record.version); // nothing written
      await store.updateTask(bump(a, {}, { dueDone: 'me' }));
      await store.finishDue(b.record.id, 'me'); // not the holder: nothing happens
      expect(await store.claimDue('me', 2_000, 3_000, 10)).toEqual([{ taskId: b.record.id, dueAt: 200 }]); // b's lease ran out
      await store.finishDue(b.record.id, 'me');
      expect(await store.claimDue('me', 5_000, 6_000, 10)).toEqual([]);
      await store.close();
    });

    it('counts holds (things held at once) until they are given back, and keeps them through pruning', async () => {
      const { store } = await open();
      const hold = { key: 'open|p', windowStart: HOLD_WINDOW, limit: 1 };
      await store.createTask({ ...newTask(), quotas: [hold] });
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      await store.prune(Date.now() + 10 * 86_400_000);
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      const w = newTask();
      await store.createTask({ ...w, quotas: [{ ...hold, amount: -1 }, { ...hold, amount: -1 }] }); // never below zero
      await store.createTask({ ...newTask(), quotas: [hold] });
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      await store.close();
    });

    it('refuses a read, write or token lookup whose gate is closed, before its token, and writes nothing', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'gia', createdAt: 1 }, { id: 'tg1', hash: 'gia-hash' });
      const closed = { key: 'refused|203.0.113.1', windowStart: 0, limit: 1 };
      const opened = { key: 'refused|198.51.100.1', windowStart: 0, limit: 1 };
      await store.chargeQuotas([closed]);
      expect((await store.findToken('gia-hash', [opened]))?.handle).toBe('gia');
      expect(await store.findToken('never-issued', [opened])).toBeUndefined();
      await expect(store.findToken('gia-hash', [opened, closed])).rejects.toBeInstanceOf(QuotaExceeded);
      await expect(store.findToken('never-issued', [closed])).rejects.toBeInstanceOf(QuotaExceeded); // the gate comes first
      const created = newTask();
      await store.createTask({ ...created, liveToken: 'gia-hash', tokenGate: [opened] });
      const gated = { includeArtifacts: true, liveToken: 'gia-hash', tokenGate: [closed] };
      await expect(store.getTask(created.record.id, gated)).rejects.toBeInstanceOf(QuotaExceeded);
      await expect(store.getTask(created.record.id, { ...gated, liveToken: 'never-issued' })).rejects.toBeInstanceOf(QuotaExceeded);
      const refused = newTask();
      await expect(store.createTask({ ...refused, liveToken: 'gia-hash', tokenGate: [closed] })).rejects.toBeInstanceOf(QuotaExceeded);
      await expect(store.updateTask({ ...bump(created), liveToken: 'gia-hash', tokenGate: [closed] })).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))?.record.version).toBe(1);
      await store.close();
    });

    it('counts charges that pay for no write on their own, all or none, never past the limit', async () => {
      const { store } = await open();
      const failure = { key: 'refused|203.0.113.9', windowStart: 60_000, limit: 2 };
      await store.chargeQuotas([failure]);
      await store.chargeQuotas([failure]);
      await expect(store.chargeQuotas([failure])).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.quotaUsed(failure.key, failure.windowStart)).toBe(2);
      const other = { key: 'refused|198.51.100.9', windowStart: 60_000, limit: 2 };
      await expect(store.chargeQuotas([other, failure])).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.quotaUsed(other.key, other.windowStart)).toBe(0); // the refusal counted nothing
      await store.close();
    });

    it('keeps push configs per task and cancels their pending deliveries when one is deleted', async () => {
      const { store } = await open();
      const w = newTask();
      await store.createTask(w);
      const config = { taskId: w.record.id, owner: 'a', url: 'https://x.example/hook', createdAt: 1 };
      expect(await store.putPushConfig({ ...config, id: 'c1', token: 't', authentication: { scheme: 'Bearer', credentials: 'k' } }, 2)).toBe('stored');
      expect(await store.putPushConfig({ ...config, id: 'c1', url: 'https://y.example/hook', createdAt: 2 }, 2)).toBe('stored'); // an update of one's own
      expect(await store.putPushConfig({ ...config, id: 'c1', owner: 'b' }, 2)).toBe('taken');
      expect(await store.putPushConfig({ ...config, id: 'c2', protocol: '0.3' }, 2)).toBe('stored');
      expect(await store.putPushConfig({ ...config, id: 'c3' }, 2)).toBe('full'); // 'a' holds two others
      expect(await store.putPushConfig({ ...config, id: 'c3', owner: 'b', protocol: '0.3' }, 2)).toBe('stored'); // the cap is per owner
      expect(await store.putPushConfig({ ...config, id: 'c3', owner: 'b' }, 2)).toBe('stored'); // set again through 1.0: a 1.0 config
      expect((await store.listPushConfigs(w.record.id)).map((c) => [c.id, c.owner, c.url, c.token, c.protocol])).toEqual([
        ['c1', 'a', 'https://y.example/hook', undefined, undefined],
        ['c2', 'a', 'https://x.example/hook', undefined, '0.3'],
        ['c3', 'b', 'https://x.example/hook', undefined, undefined],
      ]);
      expect(await store.deletePushConfig(w.record.id, 'c2')).toBe(true);
      expect(await store.deletePushConfig(w.record.id, 'c3')).toBe(true);
      const next = bump(w, {}, { deliveries: [draft(w.record.id, pushChannel('c1'), 2)] });
      await store.updateTask(next);
      expect(await store.deletePushConfig(w.record.id, 'c1')).toBe(true);
      expect(await store.deletePushConfig(w.record.id, 'c1')).toBe(false);
      expect((await store.listDeliveries(w.record.id)).map((d) => d.state)).toEqual(['canceled']);
      await store.close();
    });

    it("queues a new task's forward only while its target forwards, to the endpoint its record holds", async () => {
      const { store } = await open();
      const handle = `fwd-${Math.random().toString(36).slice(2, 10)}`;
      await store.insertAgent({ handle, createdAt: 1 }, { id: `t-${handle}`, hash: `h-${handle}` });
      const forward = (w: TaskWrite) => ({ to: handle, draft: () => ({ id: `f-${w.record.id}`, taskId: w.record.id, channel: 'forward', seq: 1, to: handle, headers: { 'content-type': 'application/json' }, body: '{}' }) });
      const before = newTask({ target: handle });
      expect(await store.createTask({ ...before, forward: forward(before) })).toEqual({ forwarded: false }); // no endpoint, no forwarding
      expect(await store.listDeliveries(before.record.id)).toEqual([]);
      const verified = await store.markEndpointVerified(handle, 'https://agent.example/', { url: 'https://agent.example/rpc', protocol: 'JSONRPC/0.3', follow: 'push' }, 2);
      expect([verified.endpointRpcUrl, verified.endpointProtocol, verified.endpointFollow]).toEqual(['https://agent.example/rpc', 'JSONRPC/0.3', 'push']);
      await store.setForwarding(handle, true, []);
      const during = newTask({ target: handle });
      expect(await store.createTask({ ...during, forward: forward(during) })).toEqual({ forwarded: true });
      expect((await store.listDeliveries(during.record.id)).map((d) => [d.channel, d.url, d.state])).toEqual([['forward', 'https://agent.example/rpc', 'pending']]);
      await store.setForwarding(handle, false, []);
      const after = newTask({ target: handle });
      expect(await store.createTask({ ...after, forward: forward(after) })).toEqual({ forwarded: false });
      expect((await store.listDeliveries(during.record.id)).map((d) => d.state)).toEqual(['canceled']); // switching off cancels what was pending
      await store.close();
    });

    it('leases due deliveries one per channel at a time, in event order; only the lease holder records an outcome', async () => {
      const { store } = await open();
      const w = newTask();
      await store.createTask({ ...w, deliveries: [draft(w.record.id, 'ch', 1), draft(w.record.id, 'ch', 2), draft(w.record.id, 'other', 1)] });
      const now = w.record.updatedAt;
      const first = await store.claimDeliveries('me', now, now + 1000, 10);
      expect(first.map((d) => [d.channel, d.seq])).toEqual([['ch', 1], ['other', 1]]);
      expect(await store.claimDeliveries('you', now, now + 1000, 10)).toEqual([]); // leased, and seq 2 waits for seq 1
      const ch1 = first[0]!;
      expect(await store.finishDelivery(ch1.id, 'you', { state: 'delivered', attempts: 1, nextAt: now, lastAttemptAt: now })).toBe(false);
      expect(await store.finishDelivery(ch1.id, 'me', { state: 'pending', attempts: 1, nextAt: now + 50, lastAttemptAt: now, lastError: 'HTTP 503' })).toBe(true);
      expect(await store.claimDeliveries('me', now + 10, now + 1000, 10)).toEqual([]); // not due yet, and still holds up seq 2
      const retried = await store.claimDeliveries('me', now + 60, now + 1000, 10);
      expect(retried.map((d) => [d.seq, d.attempts, d.lastError])).toEqual([[1, 1, 'HTTP 503']]);
      await store.finishDelivery(retried[0]!.id, 'me', { state: 'delivered', attempts: 2, nextAt: now + 60, lastAttemptAt: now + 60, lastStatus: 200 });
      expect((await store.claimDeliveries('me', now + 61, now + 1000, 10)).map((d) => d.seq)).toEqual([2]);
      await store.close();
    });

    it("keeps the first admin token hash offered, and answers it to every later offer", async () => {
      const { store, reopen } = await open();
      const first = await store.adminTokenHash();
      const mine = `hash-${Math.random().toString(36).slice(2)}`;
      const kept = await store.keepAdminTokenHash(mine);
      expect(kept).toBe(first ?? mine); // a database that has one keeps it
      expect(await store.keepAdminTokenHash('another')).toBe(kept);
      await store.close();
      const again = await reopen();
      expect(await again.adminTokenHash()).toBe(kept);
      await again.close();
    });

    it('keeps the first signing key saved', async () => {
      const { store } = await open();
      await store.saveSigningKey({ kid: 'k1', privateJwk: { d: 'x' }, publicJwk: { x: 'y' }, createdAt: 1 });
      await store.saveSigningKey({ kid: 'k2', privateJwk: { d: 'z' }, publicJwk: { x: 'w' }, createdAt: 2 });
      expect((await store.loadSigningKeys()).map((k) => k.kid)).toEqual(['k1']);
      await store.close();
    });

    it('adds a rotated signing key only over the newest key, and forgets keys', async () => {
      const { store } = await open();
      await store.saveSigningKey({ kid: 'k1', privateJwk: { d: 'x' }, publicJwk: { x: 'y' }, createdAt: 1 });
      expect(await store.addSigningKey({ kid: 'k2', privateJwk: { d: 'z' }, publicJwk: { x: 'w' }, createdAt: 2 }, 'k1')).toBe(true);
      // A second rotation that read k1 as the newest loses: k2 replaced it already.
      expect(await store.addSigningKey({ kid: 'k3', privateJwk: { d: 'v' }, publicJwk: { x: 'u' }, createdAt: 3 }, 'k1')).toBe(false);
      expect(await store.addSigningKey({ kid: 'k3', privateJwk: { d: 'v' }, publicJwk: { x: 'u' }, createdAt: 3 }, 'k2')).toBe(true);
      await store.deleteSigningKeys(['k1']);
      const kept = await store.loadSigningKeys();
      expect(kept.map((k) => [k.kid, k.createdAt])).toEqual([['k2', 2], ['k3', 3]]);
      expect(kept[1]!.privateJwk).toEqual({ d: 'v' });
      await store.close();
    });

    it('prunes old receipts and ended quota windows, and nothing else', async () => {
      const { store } = await open();
      const w = newTask();
      await store.createTask({ ...w, receipt: { scope: 'p', key: 'old', fingerprint: 'f', result: {} } });
      await store.prune(w.record.updatedAt + 1);
      expect(await store.getReceipt('p', 'old')).toBeUndefined();
      expect(await store.getTask(w.record.id, { includeArtifacts: false })).toBeDefined();
      await store.close();
    });

    it('keeps everything across close and reopen (migrations run once)', async () => {
      const { store, reopen } = await open();
      const w = newTask();
      await store.createTask(w);
      await store.close();
      const again = await reopen();
      expect((await again.getTask(w.record.id, { includeArtifacts: false }))?.record).toEqual(w.record);
      await again.close();
    });
  });
}
