/**
 * The boards contract as a suite (boards.ts), run against every dialect. Ids and handles carry a
 * tag of each test's own, so the suite also holds on a database other tests write to.
 */
import { describe, expect, it } from 'vitest';
import { boardScope } from '../hub/view.js';
import { StoreConflict, type BoardWrite, type NewCard, type Store } from './store.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

async function registered(store: Store, handle: string): Promise<string> {
  await store.insertAgent({ handle, createdAt: 1 }, { id: `t-${handle}`, hash: `h-${handle}` });
  return handle;
}

const card = (id: string, text: string, over: Partial<NewCard> = {}): NewCard => ({
  id,
  text,
  tags: [],
  links: [],
  writtenBy: 'a2a:ann',
  createdAt: 5,
  ...over,
});

function newBoard(
  owner: string,
  over: Partial<NonNullable<BoardWrite['create']>> = {},
  cards: NewCard[] = [],
): BoardWrite {
  const id = `b-${tagged()}`;
  return {
    create: { id, title: `Board ${id}`, owner, visibility: 'private', sharedWith: [], createdAt: 5, ...over },
    boardId: id,
    cards,
    connections: [],
    maxCards: 100,
    at: 5,
  };
}

export function boardsSuite(name: string, open: () => Promise<Store>): void {
  describe(`boards contract: ${name}`, () => {
    it('makes a board with its cards in order, appends keeping every earlier card, and a repeated write adds nothing', async () => {
      const store = await open();
      const ann = await registered(store, `ann-${tagged()}`);
      const made = newBoard(ann, { title: 'Launch plan' }, [
        card('c1', 'Ship the face #launch', { tags: ['launch'], title: 'Face' }),
        card('c2', 'Seed the directory', { claimedBy: 'planner' }),
      ]);
      const board = await store.writeBoard(made);
      expect(board).toMatchObject({
        id: made.boardId,
        title: 'Launch plan',
        owner: ann,
        visibility: 'private',
        sharedWith: [],
        cardCount: 2,
      });
      const append: BoardWrite = {
        boardId: board.id,
        cards: [card('c3', 'We chose PostgreSQL', { createdAt: 9 })],
        connections: [{ from: 'c1', to: 'c3', type: 'leads_to', writtenBy: 'a2a:ann', createdAt: 9 }],
        maxCards: 100,
        at: 9,
      };
      expect(await store.writeBoard(append)).toMatchObject({ cardCount: 3, updatedAt: 9 });
      expect(await store.writeBoard(append)).toMatchObject({ cardCount: 3 }); // a retry
      expect(await store.writeBoard(made)).toMatchObject({ cardCount: 3 }); // the creating write, retried
      const { cards, connections } = await store.boardContents(board.id);
      expect(cards.map((c) => [c.id, c.position])).toEqual([
        ['c1', 0],
        ['c2', 1],
        ['c3', 2],
      ]);
      expect(cards[0]).toStrictEqual({
        id: 'c1',
        boardId: board.id,
        position: 0,
        text: 'Ship the face #launch',
        title: 'Face',
        tags: ['launch'],
        links: [],
        writtenBy: 'a2a:ann',
        createdAt: 5,
      });
      expect(cards[1]!.claimedBy).toBe('planner');
      expect(connections).toStrictEqual([
        { boardId: board.id, from: 'c1', to: 'c3', type: 'leads_to', writtenBy: 'a2a:ann', createdAt: 9 },
      ]);
      // The cards among some ids, in order, without reading the board whole; ids not on it are not there.
      expect((await store.boardCards(board.id, ['c3', 'nope', 'c1'])).map((c) => c.id)).toEqual(['c1', 'c3']);
      expect(await store.boardCards(board.id, [])).toEqual([]);
      await store.close();
    });

    it("counts a write's quota charges with it; one over its limit refuses the write whole, counter included", async () => {
      const store = await open();
      const ann = await registered(store, `ann-${tagged()}`);
      const quota = { key: `memory.calls|${ann}`, windowStart: 60_000, limit: 1 };
      const board = await store.writeBoard(Object.assign(newBoard(ann, {}, [card('c1', 'one')]), { quotas: [quota] }));
      expect(await store.quotaUsed(quota.key, quota.windowStart)).toBe(1);
      const over = store.writeBoard({
        boardId: board.id,
        cards: [card('c2', 'two')],
        connections: [],
        maxCards: 100,
        at: 6,
        quotas: [quota],
      });
      await expect(over).rejects.toMatchObject({ name: 'QuotaExceeded', key: quota.key });
      expect((await store.boardContents(board.id)).cards.map((c) => c.id)).toEqual(['c1']);
      expect(await store.quotaUsed(quota.key, quota.windowStart)).toBe(1);
      await store.close();
    });

    it('refuses past the card and board limits, and a taken id, writing nothing', async () => {
      const store = await open();
      const ann = await registered(store, `ann-${tagged()}`);
      const bob = await registered(store, `bob-${tagged()}`);
      const board = await store.writeBoard(newBoard(ann, {}, [card('c1', 'one')]));
      const over = store.writeBoard({
        boardId: board.id,
        cards: [card('c2', 'two'), card('c3', 'three')],
        connections: [],
        maxCards: 2,
        at: 6,
      });
      await expect(over).rejects.toMatchObject({ what: 'board-full' });
      expect((await store.boardContents(board.id)).cards).toHaveLength(1);
      await expect(store.writeBoard(newBoard(ann, {}, []))).resolves.toBeDefined();
      await expect(store.writeBoard({ ...newBoard(ann), maxBoards: 2 })).rejects.toMatchObject({
        what: 'boards-limit',
      });
      expect(await store.countBoards(ann)).toBe(2);
      const taken = store.writeBoard({
        ...newBoard(bob),
        create: { ...newBoard(bob).create!, id: board.id },
        boardId: board.id,
      });
      await expect(taken).rejects.toBeInstanceOf(StoreConflict);
      await expect(taken).rejects.toMatchObject({ what: 'board-id' });
      await expect(
        store.writeBoard({ boardId: `none-${tagged()}`, cards: [], connections: [], maxCards: 5, at: 1 }),
      ).rejects.toMatchObject({ what: 'board-missing' });
      await store.close();
    });

    it('lists and recalls only within a scope: private to the owner, shared to named agents, public to all', async () => {
      const store = await open();
      const [ann, bob, cy] = await Promise.all(['ann', 'bob', 'cy'].map((h) => registered(store, `${h}-${tagged()}`)));
      const word = `zeta${tagged()}`; // a word only this test's cards say
      const secret = await store.writeBoard(newBoard(ann!, { title: 'Secret' }, [card('s1', `the ${word} plan`)]));
      const shared = await store.writeBoard(
        newBoard(ann!, { title: 'Shared', visibility: 'shared', sharedWith: [bob!] }, [
          card('h1', `${word} for bob`, { tags: ['decision'] }),
        ]),
      );
      const open_ = await store.writeBoard(
        newBoard(cy!, { title: 'Open', visibility: 'public' }, [card('p1', `a public ${word}`)]),
      );
      const scope = (handle: string) => boardScope({ kind: 'agent', handle });
      const recalled = async (s: ReturnType<typeof scope>, tags: string[] = []) =>
        (await store.recall(s, { words: [word], tags, limit: 10 })).map((r) => r.card.id).sort();
      expect(await recalled(scope(ann!))).toEqual(['h1', 'p1', 's1']);
      expect(await recalled(scope(bob!))).toEqual(['h1', 'p1']);
      expect(await recalled(scope(cy!))).toEqual(['p1']);
      expect(await recalled(boardScope({ kind: 'anonymous' }))).toEqual(['p1']);
      const ids = async (s: ReturnType<typeof scope>) =>
        (await store.listBoards(s, { limit: 50 })).boards
          .map((b) => b.id)
          .filter((id) => [secret.id, shared.id, open_.id].includes(id));
      expect((await ids(scope(bob!))).sort()).toEqual([open_.id, shared.id].sort());
      expect(await ids(scope(cy!))).toEqual([open_.id]);
      expect((await store.getBoard(shared.id))?.sharedWith).toEqual([bob]);
      expect((await store.listBoards(scope(ann!), { limit: 5, title: 'secret' })).boards.map((b) => b.id)).toEqual([
        secret.id,
      ]);
      const umlaut = await store.writeBoard(newBoard(ann!, { title: 'Über Plan' }));
      expect((await store.listBoards(scope(ann!), { limit: 5, title: 'über plan' })).boards.map((b) => b.id)).toEqual([
        umlaut.id,
      ]); // case folded alike on every dialect
      await store.close();
    });

    it('ranks a tagged card above one that only says the word, matches words by prefix, and keeps to one board when asked', async () => {
      const store = await open();
      const ann = await registered(store, `ann-${tagged()}`);
      const word = `kappa${tagged()}`;
      const board = await store.writeBoard(
        newBoard(ann, {}, [
          card('w', `we talked about ${word} today`),
          card('t', `${word}`, { tags: [word] }),
          card('x', 'nothing here'),
        ]),
      );
      const other = await store.writeBoard(newBoard(ann, {}, [card('o', `${word}s elsewhere`)]));
      const scope = boardScope({ kind: 'agent', handle: ann });
      const ranked = await store.recall(scope, { words: [word], tags: [word], limit: 10 });
      expect(ranked[0]!.card.id).toBe('t');
      const loud = await store.writeBoard(
        newBoard(ann, {}, [
          card('loud', `${word} ${word} ${word}`, { title: word }),
          card('quiet', 'said once', { tags: [word] }),
        ]),
      );
      expect(
        (await store.recall(scope, { words: [word], tags: [word], limit: 10, boardId: loud.id })).map((r) => r.card.id),
      ).toEqual(['quiet', 'loud']); // the tag first, whatever the text says
      expect(ranked.map((r) => r.card.id).sort()).toEqual(['o', 't', 'w']); // "…s elsewhere" by prefix
      expect(ranked.find((r) => r.card.id === 'o')!.boardTitle).toBe(other.title);
      expect(
        (await store.recall(scope, { words: [word], tags: [], limit: 10, boardId: board.id }))
          .map((r) => r.card.id)
          .sort(),
      ).toEqual(['t', 'w']);
      expect(await store.recall(scope, { words: [], tags: [], limit: 10 })).toEqual([]);
      expect(await store.recall(scope, { words: ['"quoted) OR *'], tags: ["it's"], limit: 10 })).toEqual([]); // nothing in a term is syntax
      await store.close();
    });
  });
}
