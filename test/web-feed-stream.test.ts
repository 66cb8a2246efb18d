/**
 * The web feed's live stream and lists without a browser: what GET /feed/events tells (public
 * changes only: never a direct task, a memory call or a private board), its slots per address,
 * its end when the hub stops, and the review and call lists narrowed by kind through the view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, register, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sseBlocks, type SseBlock } from './helpers/sse.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_MAX_STREAMS_PER_CALLER: '2' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

interface FeedStream {
  status: number;
  blocks: SseBlock[];
  ended: Promise<void>;
  waitFor(found: (b: SseBlock) => boolean, ms?: number): Promise<SseBlock>;
  close(): void;
}

async function openFeed(): Promise<FeedStream> {
  const abort = new AbortController();
  const res = await fetch(`${hub.url}feed/events`, { signal: abort.signal });
  const blocks: SseBlock[] = [];
  const ended = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (async () => {
        try {
          for await (const block of sseBlocks(res.body!.getReader())) blocks.push(block);
        } catch {
          /* closed */
        }
      })()
    : res.text().then(() => undefined);
  return {
    status: res.status,
    blocks,
    ended,
    close: () => abort.abort(),
    waitFor: async (found, ms = 5_000) => {
      const until = Date.now() + ms;
      for (;;) {
        const block = blocks.find(found);
        if (block) return block;
        if (Date.now() > until) throw new Error(`not heard within ${ms} ms: ${JSON.stringify(blocks)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra },
  configuration: { returnImmediately: true },
});

describe('GET /feed/events', () => {
  it('tells public changes as {id, kind, state, updatedAt}, and nothing of private tasks, memory calls or boards', async () => {
    const feed = await openFeed();
    expect(feed.status).toBe(200);
    const direct = await rpc(`${hub.url}agents/bob/`, 'SendMessage', message([{ text: 'private words' }]), {
      token: alice.token,
    });
    const memory = await rpc(
      `${hub.url}memory/`,
      'SendMessage',
      message([{ data: { skill: 'board.create', args: { title: 'Private board', cards: ['secret card'] } } }]),
      { token: alice.token },
    );
    const call = await rpc(
      hub.url,
      'SendMessage',
      message([
        {
          data: {
            skill: 'call.open',
            args: { title: 'A public call', question: 'What should the feed show first of all?' },
          },
        },
      ]),
      { token: ADMIN_TOKEN },
    );
    const callId = call.body.result.task.id as string;
    const heard = await feed.waitFor((b) => b.data?.id === callId);
    expect(heard.data).toEqual({
      id: callId,
      kind: 'call',
      state: 'TASK_STATE_WORKING',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // An answer is news too; afterwards the private writes, made before it, have had their chance to be told.
    await rpc(
      hub.url,
      'SendMessage',
      message([{ data: { body: 'Open reviews and their deadlines, first.' } }], { taskId: callId }),
      { token: bob.token },
    );
    await feed.waitFor((b) => b.data?.id === callId && b !== heard);
    const told = JSON.stringify(feed.blocks);
    expect(told).not.toContain(direct.body.result.task.id);
    expect(told).not.toContain(memory.body.result.task.id);
    expect(told).not.toContain('private words');
    expect(told).not.toContain('secret card');
    feed.close();
  });

  it('counts the streams of one address in its slots, and a slot frees when a stream ends', async () => {
    const [first, second] = [await openFeed(), await openFeed()];
    const third = await openFeed();
    expect(third.status).toBe(429);
    first.close();
    await first.ended;
    let again = await openFeed();
    for (let i = 0; again.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20)); // the server hears the close a moment after the client
      again = await openFeed();
    }
    expect(again.status).toBe(200);
    second.close();
    again.close();
  });
});

describe('the feed lists', () => {
  it('the reviews and calls pages list only their own kind, as anyone may see them', async () => {
    const calls = await (await fetch(`${hub.url}feed/calls`)).text();
    expect(calls).toContain('A public call');
    const reviews = await (await fetch(`${hub.url}feed/reviews`)).text();
    expect(reviews).not.toContain('A public call');
    expect(reviews).toContain('No review is open.');
  });

  it('pages a long list: the agent directory links to its older page, which shows the rest; a bad cursor is a 400 page', async () => {
    const handles = Array.from({ length: 55 }, (_, i) => `many-${String(i).padStart(2, '0')}`);
    for (const handle of handles) await register(hub, handle, {}, ADMIN_TOKEN);
    const first = await (await fetch(`${hub.url}feed/agents`)).text();
    const older = /<a href="(\/feed\/agents\?page=[^"]+)" rel="next">Next page<\/a>/.exec(first)?.[1];
    expect(older).toBeDefined();
    const second = await (await fetch(`${hub.url}${older!.slice(1).replace(/&amp;/g, '&')}`)).text();
    const listed = (page: string) => [...page.matchAll(/href="\/feed\/agents\/([^"]+)"/g)].map((m) => m[1]!);
    const all = [...listed(first), ...listed(second)];
    expect(all.filter((h) => h.startsWith('many-')).sort()).toEqual(handles);
    expect(second).toContain('>First page</a>');
    const bad = await fetch(`${hub.url}feed/agents?page=not-a-cursor`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('when the hub stops', () => {
  it('ends every open feed stream', async () => {
    const feed = await openFeed();
    expect(feed.status).toBe(200);
    await hub.close();
    await feed.ended; // resolves: the server ended the stream
    expect(feed.blocks.length).toBeGreaterThan(0);
  });
});
