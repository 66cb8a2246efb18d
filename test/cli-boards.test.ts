/**
 * Memory boards by CLI: a real hub, the real `muster` process. create, remember, recall, read,
 * list, export and import (export then import gives the same board), readable and --json, and a
 * bad board file refused before anything is sent. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMuster, type Run } from './helpers/cli.js';
import { registerAll, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let ann: Registered, bob: Registered;
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
  [ann, bob] = await registerAll(hub, 'board-ann', 'board-bob');
});
afterAll(() => hub.destroy());

describe('muster board', { timeout: 240_000 }, () => {
  it('create, remember, recall, read and list, readable and --json', async () => {
    expect(said(await muster(['board', 'create', 'Release notes', 'Ship the memory base #release', 'Write the docs'], ann.token))).toMatch(/^Made the board "Release notes" \(.+\) with 2 cards/);
    expect(said(await muster(['board', 'remember', 'Release notes', 'Bench', 'recall', 'on', '100k', 'cards'], ann.token))).toContain('Added 1 card to "Release notes", which now holds 3 cards');
    const recalled = said(await muster(['board', 'recall', '#release'], ann.token));
    expect(recalled).toContain('[Release notes] Ship the memory base #release');
    const read = said(await muster(['board', 'read', 'Release notes'], ann.token));
    expect(read).toMatch(/^# Release notes\n3 cards/);
    const task = json(await muster(['board', 'list', '--json'], ann.token));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const listed = task.artifacts[0].parts.find((p: any) => p.data).data.boards;
    expect(listed.map((b: any) => b.title)).toEqual(['Release notes']);
    expect(json(await muster(['board', 'list', '--json'], bob.token)).artifacts[0].parts.find((p: any) => p.data).data.boards).toEqual([]);
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
    expect(said(await muster(['board', 'export', id, '--out', out], ann.token))).toContain(`wrote ${out}: "Graph", 2 cards`);
    const exported = JSON.parse(readFileSync(out, 'utf8'));
    expect(exported).toMatchObject({ format: 'muster.board', version: 1, board: { title: 'Graph', owner: 'board-ann' } });
    exported.connections = [{ from: exported.cards[0].id, to: exported.cards[1].id, type: 'leads_to', writtenBy: 'a2a:board-ann', createdAt: exported.board.createdAt }];
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
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('is not a board file') });
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{nope');
    expect((await muster(['board', 'import', notJson], ann.token)).code).toBe(2);
  });
});
