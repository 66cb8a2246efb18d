/**
 * The store contract's deliveries and keys as a suite, beside store.suite.ts: push configs, the
 * forwards and leases of the outbox, the admin token, signing keys, pruning and reopening. Every
 * Store implementation runs it against a real database.
 */
import { describe, expect, it } from 'vitest';
import { pushChannel, type Store, type TaskWrite } from './store.js';
import { bump, draft, newTask } from './task-writes.fixture.js';

export function deliveriesSuite(
  name: string,
  open: () => Promise<{ store: Store; reopen: () => Promise<Store> }>,
): void {
  describe(`store contract, deliveries and keys: ${name}`, () => {
    it('keeps push configs per task and cancels their pending deliveries when one is deleted', async () => {
      const { store } = await open();
      const w = newTask();
      await store.createTask(w);
      const config = { taskId: w.record.id, owner: 'a', url: 'https://x.example/hook', createdAt: 1 };
      expect(
        await store.putPushConfig(
          { ...config, id: 'c1', token: 't', authentication: { scheme: 'Bearer', credentials: 'k' } },
          2,
        ),
      ).toBe('stored');
      expect(await store.putPushConfig({ ...config, id: 'c1', url: 'https://y.example/hook', createdAt: 2 }, 2)).toBe(
        'stored',
      ); // an update of one's own
      expect(await store.putPushConfig({ ...config, id: 'c1', owner: 'b' }, 2)).toBe('taken');
      expect(await store.putPushConfig({ ...config, id: 'c2', protocol: '0.3' }, 2)).toBe('stored');
      expect(await store.putPushConfig({ ...config, id: 'c3' }, 2)).toBe('full'); // 'a' holds two others
      expect(await store.putPushConfig({ ...config, id: 'c3', owner: 'b', protocol: '0.3' }, 2)).toBe('stored'); // the cap is per owner
      expect(await store.putPushConfig({ ...config, id: 'c3', owner: 'b' }, 2)).toBe('stored'); // set again through 1.0: a 1.0 config
      expect(
        (await store.listPushConfigs(w.record.id)).map((c) => [c.id, c.owner, c.url, c.token, c.protocol]),
      ).toEqual([
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
      const forward = (w: TaskWrite) => ({
        to: handle,
        draft: () => ({
          id: `f-${w.record.id}`,
          taskId: w.record.id,
          channel: 'forward',
          seq: 1,
          to: handle,
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      });
      const before = newTask({ target: handle });
      expect(await store.createTask({ ...before, forward: forward(before) })).toEqual({ forwarded: false }); // no endpoint, no forwarding
      expect(await store.listDeliveries(before.record.id)).toEqual([]);
      const verified = await store.markEndpointVerified(
        handle,
        'https://agent.example/',
        { url: 'https://agent.example/rpc', protocol: 'JSONRPC/0.3', follow: 'push' },
        2,
      );
      expect([verified.endpointRpcUrl, verified.endpointProtocol, verified.endpointFollow]).toEqual([
        'https://agent.example/rpc',
        'JSONRPC/0.3',
        'push',
      ]);
      await store.setForwarding(handle, true, []);
      const during = newTask({ target: handle });
      expect(await store.createTask({ ...during, forward: forward(during) })).toEqual({ forwarded: true });
      expect((await store.listDeliveries(during.record.id)).map((d) => [d.channel, d.url, d.state])).toEqual([
        ['forward', 'https://agent.example/rpc', 'pending'],
      ]);
      await store.setForwarding(handle, false, []);
      const after = newTask({ target: handle });
      expect(await store.createTask({ ...after, forward: forward(after) })).toEqual({ forwarded: false });
      expect((await store.listDeliveries(during.record.id)).map((d) => d.state)).toEqual(['canceled']); // switching off cancels what was pending
      await store.close();
    });

    it('leases due deliveries one per channel at a time, in event order; only the lease holder records an outcome', async () => {
      const { store } = await open();
      const w = newTask();
      await store.createTask({
        ...w,
        deliveries: [draft(w.record.id, 'ch', 1), draft(w.record.id, 'ch', 2), draft(w.record.id, 'other', 1)],
      });
      const now = w.record.updatedAt;
      const first = await store.claimDeliveries('me', now, now + 1000, 10);
      expect(first.map((d) => [d.channel, d.seq])).toEqual([
        ['ch', 1],
        ['other', 1],
      ]);
      expect(await store.claimDeliveries('you', now, now + 1000, 10)).toEqual([]); // leased, and seq 2 waits for seq 1
      const ch1 = first[0]!;
      expect(
        await store.finishDelivery(ch1.id, 'you', { state: 'delivered', attempts: 1, nextAt: now, lastAttemptAt: now }),
      ).toBe(false);
      expect(
        await store.finishDelivery(ch1.id, 'me', {
          state: 'pending',
          attempts: 1,
          nextAt: now + 50,
          lastAttemptAt: now,
          lastError: 'HTTP 503',
        }),
      ).toBe(true);
      expect(await store.claimDeliveries('me', now + 10, now + 1000, 10)).toEqual([]); // not due yet, and still holds up seq 2
      const retried = await store.claimDeliveries('me', now + 60, now + 1000, 10);
      expect(retried.map((d) => [d.seq, d.attempts, d.lastError])).toEqual([[1, 1, 'HTTP 503']]);
      await store.finishDelivery(retried[0]!.id, 'me', {
        state: 'delivered',
        attempts: 2,
        nextAt: now + 60,
        lastAttemptAt: now + 60,
        lastStatus: 200,
      });
      expect((await store.claimDeliveries('me', now + 61, now + 1000, 10)).map((d) => d.seq)).toEqual([2]);
      await store.close();
    });

    it('keeps the first admin token hash offered, and answers it to every later offer', async () => {
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
      expect(
        await store.addSigningKey({ kid: 'k2', privateJwk: { d: 'z' }, publicJwk: { x: 'w' }, createdAt: 2 }, 'k1'),
      ).toBe(true);
      // A second rotation that read k1 as the newest loses: k2 replaced it already.
      expect(
        await store.addSigningKey({ kid: 'k3', privateJwk: { d: 'v' }, publicJwk: { x: 'u' }, createdAt: 3 }, 'k1'),
      ).toBe(false);
      expect(
        await store.addSigningKey({ kid: 'k3', privateJwk: { d: 'v' }, publicJwk: { x: 'u' }, createdAt: 3 }, 'k2'),
      ).toBe(true);
      await store.deleteSigningKeys(['k1']);
      const kept = await store.loadSigningKeys();
      expect(kept.map((k) => [k.kid, k.createdAt])).toEqual([
        ['k2', 2],
        ['k3', 3],
      ]);
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
