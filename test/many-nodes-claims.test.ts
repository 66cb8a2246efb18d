/**
 * Claims raced hard: 30 intents claimed at once by four workers, through two `muster serve`
 * nodes on one PostgreSQL database (on SQLite, through the one node that holds the file), three
 * rounds. Each intent is won once, the losers get LEASE_HELD naming the winner (never a 5xx), its
 * event log shows one claim, the claimable list never shows an intent whose claim was answered
 * before the list was asked for; a released intent is won again once. Also raced: a release
 * against the others' claims, land and release against the lease's end, claims against the
 * lease's end, REST against MCP claims, and one claim sent twice with an Idempotency-Key.
 * Runs on the suite's store: two nodes under MUSTER_TEST_PG, one on SQLite otherwise.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterOnTestDatabase } from './helpers/cluster.js';
import { testDialect } from './helpers/database.js';
import { register, rest, rpc, type Registered } from './helpers/hub.js';
import { callTool, mcpOverHttp, type McpConnection } from './helpers/mcp.js';
import { eventually, sleep, type NodeProcess } from './helpers/nodes.js';

const ADMIN_TOKEN = 'many-nodes-claims-admin';
const INTENTS = 30;
const SPACE = 'race';

type Answer = { status: number; body: any };

describe(`claims raced through ${testDialect === 'postgres' ? 'two nodes of one PostgreSQL database' : 'one node on SQLite'}`, () => {
  const cluster = clusterOnTestDatabase('many_nodes_claims', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_RATE_LIMITS: 'off' },
    startMs: 30_000,
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  /** The worker whose turn it is for the j-th intent. */
  const inTurn = (j: number): Registered => workers[j % workers.length]!;
  let owner: Registered;
  const workers: Registered[] = [];

  const declare = async (title: string): Promise<string> => {
    const message = {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: title }, { data: { footprint: [`${title.replace(/\W+/g, '-')}/**`] } }],
    };
    const res = await rpc(
      `${node(0).url}spaces/${SPACE}/`,
      'SendMessage',
      { message, configuration: { returnImmediately: true } },
      { token: owner.token },
    );
    if (!res.body.result) throw new Error(`declare ${title}: ${JSON.stringify(res.body)}`);
    return res.body.result.task.id;
  };
  const declareMany = (prefix: string, n = INTENTS) =>
    Promise.all(Array.from({ length: n }, (_, j) => declare(`${prefix} ${j}`)));
  const act = (via: NodeProcess, id: string, action: string, w: Registered, body: unknown = {}): Promise<Answer> =>
    rest(via, 'POST', `api/tasks/${id}/${action}`, { token: w.token, body });

  /** Every worker claims every intent at once, each intent through both nodes (worker i of intent j through node i + j); `heard` hears each answer as it comes. */
  const raceClaims = (ids: string[], heard: (id: string, a: Answer) => void = () => {}) => {
    const claim = async (id: string, w: Registered, via: NodeProcess) => {
      const a = await act(via, id, 'claim', w);
      heard(id, a);
      return a;
    };
    return Promise.all(ids.map((id, j) => Promise.all(workers.map((w, i) => claim(id, w, node(i + j))))));
  };

  /** A refusal: 409 with this code. */
  const refused = (a: Answer, code: 'LEASE_HELD' | 'LEASE_NOT_HELD') =>
    expect([a.status, a.body.error.code]).toEqual([409, code]);

  /** The claim that won; the others were refused as LEASE_HELD, naming it. */
  const oneWinner = (id: string, answers: Answer[]): string => {
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 200),
      `claims of ${id}: ${JSON.stringify(answers.map((a) => [a.status, a.body?.error?.code]))}`,
    ).toHaveLength(1);
    const winner: string = answers.find((a) => a.status === 200)!.body.metadata.muster.worker;
    for (const lost of answers.filter((a) => a.status !== 200)) {
      refused(lost, 'LEASE_HELD');
      expect(lost.body.error.message).toContain(`held by ${winner}`);
    }
    return winner;
  };

  /** The states of the intent's status events, oldest first, as stored (what SubscribeToTask replays). */
  const statusLog = async (id: string): Promise<string[]> => {
    const rows = await cluster.db().rows('SELECT body FROM events WHERE task_id = ? ORDER BY seq', id);
    return rows
      .map((r) => JSON.parse(String(r['body'])))
      .flatMap((e) => (e.statusUpdate ? [e.statusUpdate.status.state as string] : []));
  };

  /** Intents each claimed for one second, by the workers in turn. */
  const leasedForOneSecond = async (prefix: string, holderOf: (j: number) => Registered) => {
    const ids = await declareMany(prefix, 12);
    await Promise.all(
      ids.map(async (id, j) =>
        expect((await act(node(j), id, 'claim', holderOf(j), { leaseSeconds: 1 })).status).toBe(200),
      ),
    );
    return ids;
  };
  /** Waits until the j-th of them is near its lease's end: from a little before it (j = 0) to a little after it, so which write wins varies. */
  const nearLeaseEnd = (j: number) => sleep(850 + j * 25);

  /** The intent as each node reads it: one state and one worker (or none), whichever node is asked. */
  const readEverywhere = async (id: string): Promise<{ state: string; worker: string | undefined }> => {
    const reads = await Promise.all(cluster.nodes.map((n) => rest(n, 'GET', `api/tasks/${id}`)));
    const seen = reads.map((r) => ({
      state: r.body.status.state as string,
      worker: r.body.metadata.muster.worker as string | undefined,
    }));
    for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
    return seen[0]!;
  };

  /** Every page of an intents list through a node. */
  const allPages = async (
    via: NodeProcess,
    path: string,
    token?: string,
  ): Promise<{ id: string; state: string; worker?: string }[]> => {
    const items = [];
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await rest(
        via,
        'GET',
        `${path}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        token ? { token } : {},
      );
      expect(page.status).toBe(200);
      items.push(...page.body.data);
      cursor = page.body.cursor;
    }
    return items;
  };
  const claimable = (via: NodeProcess) => allPages(via, `api/spaces/${SPACE}/intents?state=claimable`);

  beforeAll(async () => {
    owner = await register(node(0), 'owner', {}, ADMIN_TOKEN);
    workers.push(...(await Promise.all(['w1', 'w2', 'w3', 'w4'].map((h, i) => register(node(i), h, {}, ADMIN_TOKEN)))));
    expect(
      (await rest(node(1), 'POST', 'api/spaces', { token: owner.token, body: { name: SPACE, claim: 'open' } })).status,
    ).toBe(201);
  }, 30_000);
  const mcpSessions: McpConnection[] = [];
  afterAll(async () => {
    await Promise.all(mcpSessions.map((c) => c.close().catch(() => undefined)));
  });

  it.each([1, 2, 3])(
    `round %i: ${INTENTS} intents claimed at once by four workers: each is won once, logged once, held by its winner on every node, never listed claimable after its claim was answered; released, won once again`,
    async (round) => {
      const ids = await declareMany(`Raced in round ${round}:`);
      const answeredAt = new Map<string, number>(); // when each winning claim was answered
      let racing = true;
      const listed: { askedAt: number; items: Awaited<ReturnType<typeof claimable>> }[] = [];
      const lister = (async () => {
        for (let n = 0; racing; n++) {
          const askedAt = performance.now();
          listed.push({ askedAt, items: await claimable(node(n)) });
        }
      })();
      const answers = await raceClaims(ids, (id, a) => a.status === 200 && answeredAt.set(id, performance.now()));
      racing = false;
      await lister;

      const winners = ids.map((id, j) => oneWinner(id, answers[j]!));
      for (const [j, id] of ids.entries()) {
        expect(await readEverywhere(id)).toEqual({ state: 'TASK_STATE_WORKING', worker: winners[j] });
        expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING']);
      }
      // A list asked for after a claim was answered does not show that intent; none shows a worker.
      for (const { askedAt, items } of listed) {
        for (const item of items) {
          expect(item.state).toBe('TASK_STATE_SUBMITTED');
          expect(item.worker).toBeUndefined();
          const claimed = answeredAt.get(item.id);
          if (claimed !== undefined)
            expect(claimed, `intent ${item.id} listed claimable after its claim was answered`).toBeGreaterThan(askedAt);
        }
      }
      for (const [i] of cluster.nodes.entries())
        expect((await claimable(node(i))).filter((item) => ids.includes(item.id))).toEqual([]);
      // Each worker holds exactly the intents it won.
      for (const w of workers) {
        const held = await allPages(node(0), 'api/intents?worker=me', w.token);
        expect(
          held
            .map((i) => i.id)
            .filter((id) => ids.includes(id))
            .sort(),
        ).toEqual(ids.filter((_, j) => winners[j] === w.handle).sort());
      }

      // Released, each is claimable again, and the second race is won once too.
      const released = await Promise.all(
        ids.map((id, j) =>
          act(
            node(j + 1),
            id,
            'release',
            workers.find((w) => w.handle === winners[j])!,
          ),
        ),
      );
      expect(released.map((r) => r.status)).toEqual(ids.map(() => 200));
      expect((await claimable(node(1))).filter((item) => ids.includes(item.id))).toHaveLength(INTENTS);
      const again = await raceClaims(ids);
      for (const [j, id] of ids.entries()) {
        const winner = oneWinner(id, again[j]!);
        expect(await readEverywhere(id)).toEqual({ state: 'TASK_STATE_WORKING', worker: winner });
        expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);
      }
    },
    120_000,
  );

  it("a release racing the other workers' claims: the release stands, at most one claim wins, and the log never shows two claims in a row", async () => {
    const ids = await declareMany('Handed over');
    await Promise.all(ids.map(async (id, j) => expect((await act(node(j), id, 'claim', inTurn(j))).status).toBe(200)));
    const answers = await Promise.all(
      ids.map((id, j) => {
        const others = workers.filter((w) => w !== inTurn(j));
        return Promise.all([
          act(node(j + 1), id, 'release', inTurn(j)),
          ...others.map((w, i) => act(node(i + j), id, 'claim', w)),
        ]);
      }),
    );
    for (const [j, id] of ids.entries()) {
      const [release, ...claims] = answers[j]!;
      expect(release!.status).toBe(200);
      const won = claims.filter((c) => c.status === 200);
      expect(won.length).toBeLessThanOrEqual(1);
      for (const lost of claims.filter((c) => c.status !== 200)) refused(lost, 'LEASE_HELD');
      const winner = won[0]?.body.metadata.muster.worker;
      expect(await readEverywhere(id)).toEqual(
        winner ? { state: 'TASK_STATE_WORKING', worker: winner } : { state: 'TASK_STATE_SUBMITTED', worker: undefined },
      );
      expect(await statusLog(id)).toEqual([
        'TASK_STATE_WORKING',
        'TASK_STATE_SUBMITTED',
        ...(winner ? ['TASK_STATE_WORKING'] : []),
      ]);
    }
  }, 120_000);

  it('land and release racing the end of a one-second lease: each intent ends one way, and a lease that ran out reopens it once', async () => {
    const ids = await leasedForOneSecond('Late', inTurn);
    const answers = await Promise.all(
      ids.map(async (id, j) => {
        await nearLeaseEnd(j); // then sent through the other node
        const action = j % 2 === 0 ? 'land' : 'release';
        return {
          action,
          answer: await act(node(j + 1), id, action, inTurn(j), action === 'land' ? { summary: 'Done in time.' } : {}),
        };
      }),
    );
    for (const [j, id] of ids.entries()) {
      const { action, answer } = answers[j]!;
      if (answer.status !== 200) refused(answer, 'LEASE_NOT_HELD');
      const landed = action === 'land' && answer.status === 200;
      const end = landed ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_SUBMITTED';
      // A lease that ran out is reopened by a scheduler, shortly; every lease has run out by the time it is read.
      await eventually(`intent ${id} ${end}`, async () =>
        (await readEverywhere(id)).state === end ? true : undefined,
      );
      expect(await readEverywhere(id)).toEqual({ state: end, worker: landed ? inTurn(j).handle : undefined }); // who landed it stays named
      // The due work is done with (nothing will reopen it later), and the log ends once.
      await eventually(`intent ${id}'s due work done`, async () =>
        (await cluster.db().rows('SELECT task_id FROM due_work WHERE task_id = ?', id)).length === 0 ? true : undefined,
      );
      expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING', end]);
    }
  }, 120_000);

  it("REST and MCP claims (muster_intent_claim over HTTP) raced through both nodes: one wins, each loser is LEASE_HELD in its door's words", async () => {
    const ids = await declareMany('Mixed doors', 10);
    // w1 and w2 claim over REST, w3 and w4 over MCP, each door through both nodes.
    const sessions = await Promise.all(workers.slice(2).map((w, i) => mcpOverHttp(node(i), w.token)));
    mcpSessions.push(...sessions);
    const claimOver = async (
      i: number,
      id: string,
      j: number,
    ): Promise<{ won: boolean; worker?: string; code?: string }> => {
      if (i < 2) {
        const a = await act(node(i + j), id, 'claim', workers[i]!);
        return a.status === 200
          ? { won: true, worker: a.body.metadata.muster.worker }
          : { won: false, code: `${a.status} ${a.body.error.code}` };
      }
      const t = await callTool(sessions[i - 2]!.client, 'muster_intent_claim', { id });
      return t.isError
        ? { won: false, code: `mcp ${t.structured.error.code}` }
        : { won: true, worker: t.structured.intent.worker };
    };
    const outcomes = await Promise.all(ids.map((id, j) => Promise.all(workers.map((_, i) => claimOver(i, id, j)))));
    for (const [j, id] of ids.entries()) {
      const won = outcomes[j]!.filter((o) => o.won);
      expect(won, JSON.stringify(outcomes[j])).toHaveLength(1);
      expect(outcomes[j]!.filter((o) => !o.won).map((o) => o.code)).toEqual(
        outcomes[j]!.flatMap((o, i) => (o.won ? [] : [i < 2 ? '409 LEASE_HELD' : 'mcp LEASE_HELD'])),
      );
      expect(await readEverywhere(id)).toEqual({ state: 'TASK_STATE_WORKING', worker: won[0]!.worker });
      expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING']);
    }
  }, 120_000);

  it('a claim sent twice with one Idempotency-Key, through both nodes at once, against another worker: one claim, and both copies answer alike', async () => {
    const ids = await declareMany('Retried', 10);
    const [keyed, rival] = [workers[0]!, workers[1]!];
    const answers = await Promise.all(
      ids.map((id, j) => {
        const key = { 'idempotency-key': randomUUID() };
        const copy = (via: NodeProcess) =>
          rest(via, 'POST', `api/tasks/${id}/claim`, { token: keyed.token, body: {}, headers: key });
        return Promise.all([copy(node(j)), copy(node(j + 1)), act(node(j + 1), id, 'claim', rival)]);
      }),
    );
    for (const [j, id] of ids.entries()) {
      const [first, second, other] = answers[j]!;
      const said = (a: Answer) =>
        a.status === 200 ? `200 ${a.body.metadata.muster.worker}` : `${a.status} ${a.body.error.code}`;
      expect(said(second!)).toBe(said(first!));
      const winner = first!.status === 200 ? keyed.handle : rival.handle;
      expect([said(first!), said(other!)]).toEqual(
        winner === keyed.handle ? [`200 ${keyed.handle}`, '409 LEASE_HELD'] : ['409 LEASE_HELD', `200 ${rival.handle}`],
      );
      expect(await readEverywhere(id)).toEqual({ state: 'TASK_STATE_WORKING', worker: winner });
      expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING']);
    }
  }, 120_000);

  it('two workers claiming through both nodes as a one-second lease runs out: at most one wins, and the log shows no claim over a live lease', async () => {
    const [holder, ...rivals] = workers;
    const ids = await leasedForOneSecond('Expiring', () => holder!);
    const answers = await Promise.all(
      ids.map(async (id, j) => {
        await nearLeaseEnd(j);
        return Promise.all(rivals.slice(0, 2).map((w, i) => act(node(i + j), id, 'claim', w)));
      }),
    );
    for (const [j, id] of ids.entries()) {
      const claims = answers[j]!;
      const won = claims.filter((c) => c.status === 200);
      expect(won.length).toBeLessThanOrEqual(1);
      for (const lost of claims.filter((c) => c.status !== 200)) refused(lost, 'LEASE_HELD');
      const winner: string | undefined = won[0]?.body.metadata.muster.worker;
      if (winner) {
        expect(await readEverywhere(id)).toEqual({ state: 'TASK_STATE_WORKING', worker: winner });
        // Claimed either over the lapsed lease (straight from the first claim) or after a scheduler reopened it.
        expect([
          ['TASK_STATE_WORKING', 'TASK_STATE_WORKING'],
          ['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'],
        ]).toContainEqual(await statusLog(id));
      } else {
        await eventually(`intent ${id} reopened`, async () =>
          (await readEverywhere(id)).state === 'TASK_STATE_SUBMITTED' ? true : undefined,
        );
        expect(await statusLog(id)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED']);
      }
    }
  }, 120_000);
});
