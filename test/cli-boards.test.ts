/**
 * Memory boards by CLI: a real hub, the real `muster` process. create, remember, recall, read,
 * list, export and import (export then import gives the same board, links included), readable and
 * --json; a bad board file refused before anything is sent; an import that stops part-way says
 * what is on the board, and --resume with the same file finishes it without writing a card twice. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, type Run } from './helpers/cli.js';
import { registerAll, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let ann: Registered, bob: Registered, cy: Registered;
const dir = mkdtempSync(join(tmpdir(), 'muster-boards-'));

const muster = (args: string[], token?: string): Promise<Run> => runMuster(hub.url, args, token);
const said = (r: Run): string => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};
const json = (r: Run) => JSON.parse(said(r));

beforeAll(async () => {
  hub = await startTestHub();
  [ann, bob, cy] = await registerAll(hub, 'board-ann', 'board-bob', 'board-cy');
});
afterAll(() => hub.destroy());

describe('muster board', { timeout: 240_000 }, () => {
  it('create, remember, recall, read and list, readable and --json', async () => {
    expect(
      said(
        await muster(
          ['board', 'create', 'Release notes', 'Ship the memory base #release', 'Write the docs'],
          ann.token,
        ),
      ),
    ).toMatch(/^Made the board "Release notes" \(.+\) with 2 cards/);
    expect(
      said(await muster(['board', 'remember', 'Release notes', 'Bench', 'recall', 'on', '100k', 'cards'], ann.token)),
    ).toContain('Added 1 card to "Release notes", which now holds 3 cards');
    const recalled = said(await muster(['board', 'recall', '#release'], ann.token));
    expect(recalled).toContain('[Release notes] Ship the memory base #release');
    const read = said(await muster(['board', 'read', 'Release notes'], ann.token));
    expect(read).toMatch(/^# Release notes\n3 cards/);
    const task = json(await muster(['board', 'list', '--json'], ann.token));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const listed = task.artifacts[0].parts.find((p: any) => p.data).data.boards;
    expect(listed.map((b: any) => b.title)).toEqual(['Release notes']);
    expect(
      json(await muster(['board', 'list', '--json'], bob.token)).artifacts[0].parts.find((p: any) => p.data).data
        .boards,
    ).toEqual([]);
    const missing = await muster(['board', 'read', 'Release notes'], bob.token);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No board 'Release notes' that you may read");
  });

  it('export then import gives the same board: cards, ids, tags and connections', async () => {
    const made = json(await muster(['board', 'create', 'Graph', 'alpha #one', 'beta', '--json'], ann.token));
    const id = made.metadata.muster.board;
    const cards = made.artifacts.find((a: any) => a.artifactId === 'board');
    expect(cards).toBeDefined();
    const out = join(dir, 'graph.json');
    expect(said(await muster(['board', 'export', id, '--out', out], ann.token))).toContain(
      `wrote ${out}: "Graph", 2 cards`,
    );
    const exported = JSON.parse(readFileSync(out, 'utf8'));
    expect(exported).toMatchObject({
      format: 'muster.board',
      version: 1,
      board: { title: 'Graph', owner: 'board-ann' },
    });
    exported.connections = [
      {
        from: exported.cards[0].id,
        to: exported.cards[1].id,
        type: 'leads_to',
        writtenBy: 'a2a:board-ann',
        createdAt: exported.board.createdAt,
      },
    ];
    writeFileSync(out, JSON.stringify(exported));

    const imported = json(await muster(['board', 'import', out, '--title', 'Graph copy', '--json'], bob.token));
    expect(imported.status.state).toBe('TASK_STATE_COMPLETED');
    const copy = JSON.parse(said(await muster(['board', 'export', 'Graph copy'], bob.token)));
    expect(copy.board).toMatchObject({ title: 'Graph copy', owner: 'board-bob', visibility: 'private' });
    const content = (file: any) => ({
      cards: file.cards.map(({ id, position, text, tags, links }: any) => ({ id, position, text, tags, links })),
      connections: file.connections.map(({ from, to, type }: any) => ({ from, to, type })),
    });
    expect(content(copy)).toEqual(content(exported));
    expect(copy.cards.every((c: any) => c.writtenBy === 'a2a:board-bob')).toBe(true);
  });

  it('refuses a file that is not a board file before sending (exit 2), as one JSON error with --json', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'something', cards: [] }));
    const refused = await muster(['board', 'import', bad, '--json'], ann.token);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('is not a board file'),
    });
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{nope');
    expect((await muster(['board', 'import', notJson], ann.token)).code).toBe(2);
  });

  it('import keeps links: to cards before, or later in the same call, across the 100-card calls', async () => {
    // As the hub writes boards: each card links back, and 95 → 105 and 199 → 201 were written in one call.
    const file = boardFileOf(250, (i) => [
      ...(i > 0 ? [`c${i - 1}`] : []),
      ...(i === 95 ? ['c105'] : []),
      ...(i === 199 ? ['c201'] : []),
    ]);
    file.connections = [
      { from: 'c0', to: 'c249', type: 'leads_to', writtenBy: 'a2a:x', createdAt: file.board.createdAt },
    ];
    const path = join(dir, 'linked.json');
    writeFileSync(path, JSON.stringify(file));
    expect(said(await muster(['board', 'import', path], cy.token))).toMatch(
      /^Imported 250 cards and 1 connection into "Linked" \(.+\)\.\n$/,
    );
    const copy = JSON.parse(said(await muster(['board', 'export', 'Linked'], cy.token)));
    expect(contentOf(copy)).toEqual(contentOf(file));
  });

  it('import draws a link that no call can carry (to a card 100 places on) as a connection of type "links", and says so', async () => {
    const file = boardFileOf(150, (i) => (i === 0 ? ['c149'] : []));
    file.board.title = 'Far link';
    const path = join(dir, 'far.json');
    writeFileSync(path, JSON.stringify(file));
    const out = said(await muster(['board', 'import', path], cy.token));
    expect(out).toMatch(
      /^Imported 150 cards and 0 connections into "Far link" \(.+\); 1 of its links named a card of a later call: drawn as connections of type "links"\.\n$/,
    );
    const copy = JSON.parse(said(await muster(['board', 'export', 'Far link'], cy.token)));
    expect(copy.cards.map((c: any) => c.links).flat()).toEqual([]);
    expect(copy.connections.map(({ from, to, type }: any) => ({ from, to, type }))).toEqual([
      { from: 'c0', to: 'c149', type: 'links' },
    ]);
  });

  it('refuses a file the hub would refuse part-way before sending anything: a card over its limit, a link to no card of the file', async () => {
    const long = boardFileOf(150, () => []);
    long.board.title = 'Never made';
    long.cards[120]!.text = 'x'.repeat(4001);
    const longPath = join(dir, 'long.json');
    writeFileSync(longPath, JSON.stringify(long));
    const tooLong = await muster(['board', 'import', longPath], cy.token);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain(`${longPath}: cards[120].text must be at most 4000 characters`);
    const lost = boardFileOf(3, (i) => (i === 2 ? ['nowhere'] : []));
    lost.board.title = 'Never made';
    const lostPath = join(dir, 'lost.json');
    writeFileSync(lostPath, JSON.stringify(lost));
    expect((await muster(['board', 'import', lostPath], cy.token)).stderr).toContain(
      'cards[2].links[0] names no card of the file: nowhere',
    );
    expect(JSON.stringify((await rest(hub, 'GET', 'api/boards', { token: cy.token })).body)).not.toContain(
      'Never made',
    );
  });

  it('an import that stops part-way says which cards are on the board; --resume with the same file finishes it, writing no card twice', async () => {
    const file = boardFileOf(250, (i) => (i > 0 ? [`c${i - 1}`] : []));
    file.board.title = 'Interrupted';
    file.connections = [
      { from: 'c249', to: 'c0', type: 'answers', writtenBy: 'a2a:x', createdAt: file.board.createdAt },
    ];
    const path = join(dir, 'interrupted.json');
    writeFileSync(path, JSON.stringify(file));
    // The second call reaches the hub and is written, but its answer is lost on the way back.
    const proxy = await answerLostProxy(hub.url, 2);
    const stopped = await runMuster(proxy.url, ['board', 'import', path], ann.token);
    await proxy.close();
    expect(stopped.code).toBe(3);
    const board =
      /The import stopped part-way: board (\S+) holds the file's cards\[0\] to cards\[99\]; the first card not known to be on it is cards\[100\] \(id c100\)\./.exec(
        stopped.stderr,
      )?.[1];
    expect(board, stopped.stderr).toBeDefined();
    expect(stopped.stderr).toContain(
      `hint: Finish it with the same file: muster board import ${path} --resume ${board}`,
    );
    const partial = (await rest(hub, 'GET', `api/boards/${board}`, { token: ann.token })).body;
    expect(partial.cards.length).toBe(200);

    expect(said(await muster(['board', 'import', path, '--resume', board!], ann.token))).toMatch(
      /^Imported 250 cards and 1 connection into "Interrupted"/,
    );
    expect(said(await muster(['board', 'import', path, '--resume', board!], ann.token))).toContain(
      'Imported 250 cards',
    );
    const finished = (await rest(hub, 'GET', `api/boards/${board}`, { token: ann.token })).body;
    expect(contentOf(finished)).toEqual(contentOf(file));
  });
});

/** A board file of `count` cards `c0`, `c1`, … whose links are `linksOf(place)`. */
function boardFileOf(count: number, linksOf: (place: number) => string[]) {
  const at = '2026-12-01T10:00:00.000Z';
  return {
    format: 'muster.board',
    version: 1,
    board: {
      id: 'b',
      title: 'Linked',
      owner: 'someone',
      visibility: 'private',
      sharedWith: [] as string[],
      createdAt: at,
      updatedAt: at,
    },
    cards: Array.from({ length: count }, (_, i) => ({
      id: `c${i}`,
      position: i,
      text: `card ${i}`,
      tags: [] as string[],
      links: linksOf(i),
      writtenBy: 'a2a:someone',
      createdAt: at,
    })),
    connections: [] as { from: string; to: string; type: string; writtenBy: string; createdAt: string }[],
  };
}

/** What an import must keep of a board file: each card's id, place, text, tags and links, and the connections. */
const contentOf = (file: any) => ({
  cards: file.cards.map(({ id, position, text, tags, links }: any) => ({ id, position, text, tags, links })),
  connections: file.connections.map(({ from, to, type }: any) => ({ from, to, type })),
});

const bodyOf = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A way to the hub that passes every request on, but drops the connection instead of answering the `nth` memory call (which the hub did). */
async function answerLostProxy(hubUrl: string, nth: number): Promise<{ url: string; close: () => Promise<void> }> {
  let memoryCalls = 0;
  const server: Server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    const pass = ['authorization', 'content-type', 'accept', 'a2a-version'].flatMap((h) =>
      typeof req.headers[h] === 'string' ? [[h, req.headers[h] as string]] : [],
    );
    const answer = await fetch(new URL(req.url!.replace(/^\//, ''), hubUrl), {
      method: req.method!,
      headers: Object.fromEntries(pass),
      ...(body.length ? { body } : {}),
    });
    const answered = Buffer.from(await answer.arrayBuffer());
    if (req.url!.startsWith('/memory/') && ++memoryCalls === nth) return void req.socket.destroy();
    res
      .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
      .end(answered);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
