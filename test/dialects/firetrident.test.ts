/**
 * FireTrident's contract at /api/colonies/{colony}/, driven with the seed's own requests (its
 * curl lines, as raw fetch with the bodies it shows): the colony's card, a declaration that
 * answers at once, GetTask with no token, a worker landing the intent natively and GetTask then
 * completed with its Landing and why links that resolve, ListTasks, CancelTask, twins and force,
 * the blocking wait. Two nodes on PostgreSQL (requests spread over both), one
 * on SQLite.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { rest } from '../helpers/hub.js';
import { sleep } from '../helpers/nodes.js';
import {
  a2a,
  COLONY,
  colonyCluster,
  declaration,
  getTask,
  landNatively,
  makeColony,
  type Colony,
} from './firetrident-helpers.js';

/** The seed's declaration, exactly as its page sends it. */
const SEED_DECLARATION = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"Add rate limiting to /api/links\\nAnonymous callers can flood the links endpoints; cap them at 60 requests a minute."},{"data":{"footprint":["src/links/**"],"acceptance":["a 61st request in a minute gets 429"]}}]},"configuration":{"returnImmediately":true}}}`;

describe(`the FireTrident colony (${testDialect === 'postgres' ? 'two nodes on PostgreSQL' : 'one node on SQLite'})`, () => {
  const { node } = colonyCluster('dialect_firetrident');
  let colony: Colony;
  let first: any; // the seed's intent, declared once

  beforeAll(async () => {
    colony = await makeColony(node(0));
    const res = await a2a(node(0), SEED_DECLARATION, colony.planner.token);
    expect(res.status).toBe(200);
    first = res.body.result.task;
  });

  it("serves the colony's card with no token: the JSON-RPC URL for 1.0 and 0.3, nothing streamed or pushed, a bearer scheme, one skill", async () => {
    const res = await fetch(`${node(1).url}api/colonies/${COLONY}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as any;
    const url = `${node(1).url}api/colonies/${COLONY}/a2a`;
    expect(card.name).toBe(COLONY);
    expect(card.description).toBe('The links service');
    expect(card.supportedInterfaces).toEqual([
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false, extendedAgentCard: false });
    const [scheme, declared] = Object.entries(card.securitySchemes)[0] as [string, any];
    expect(declared.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(card.securityRequirements[0].schemes).toHaveProperty(scheme);
    expect(card.skills.map((s: any) => s.id)).toEqual(['declare-intent']);
    expect(card.skills[0].inputModes).toEqual(['text/plain', 'application/json']);
    expect(card.skills[0].outputModes).toEqual(['text/plain', 'application/json']);
    expect(typeof card.version).toBe('string');
    expect(card.signatures).toHaveLength(1);
  });

  it('declares the seed intent at once: submitted, a sentence saying what to do next, metadata.firetrident beside metadata.muster', async () => {
    expect(first.contextId).toBe(COLONY);
    expect(first.status.state).toBe('TASK_STATE_SUBMITTED');
    const said = first.status.message;
    expect(said.role).toBe('ROLE_AGENT');
    expect(said.taskId).toBe(first.id);
    expect(said.contextId).toBe(COLONY);
    expect(said.parts[0].text).toContain(`Intent ${first.id}`);
    expect(said.parts[0].text).toContain('at priority 1');
    expect(said.parts[0].text).toMatch(/GetTask/);
    expect(said.parts[0].text).toMatch(/CancelTask withdraws it/);
    expect(first.metadata.firetrident).toEqual({
      colony: COLONY,
      intent: first.id,
      status: 'open',
      title: 'Add rate limiting to /api/links',
      source: 'agent',
      createdBy: colony.planner.handle,
      url: `${node(0).url}api/colonies/${COLONY}/intents/${first.id}`,
    });
    expect(first.metadata.muster).toMatchObject({
      kind: 'intent',
      title: 'Add rate limiting to /api/links',
      why: 'Anonymous callers can flood the links endpoints; cap them at 60 requests a minute.',
      footprint: ['src/links/**'],
      acceptance: ['a 61st request in a minute gets 429'],
    });
    // The same message sent again (the same messageId) answers the same intent: nothing new.
    const again = await a2a(node(1), SEED_DECLARATION, colony.planner.token);
    expect(again.body.result.task.id).toBe(first.id);
  });

  it('GetTask needs no token, through either node, and reads the task back as declared', async () => {
    for (const i of [0, 1]) {
      const res = await a2a(node(i), getTask(first.id));
      expect(res.status).toBe(200);
      expect(res.body.result.id).toBe(first.id);
      expect(res.body.result.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(res.body.result.metadata.firetrident.status).toBe('open');
    }
  });

  it('a worker lands it natively; GetTask then answers completed with the Landing, whose why links resolve', async () => {
    const [alice] = colony.workers;
    await landNatively(node(1), first.id, alice!, {
      summary: 'Capped /api/links at 60 requests a minute per caller.',
      commit: 'c0ffee1',
      files: [
        { path: 'src/links/limit.ts', why: 'the limiter' },
        { path: 'src/links/handler.ts', why: 'uses it' },
      ],
    });
    const task = (await a2a(node(0), getTask(first.id))).body.result;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toContain('landed intent');
    expect(task.status.message.parts[0].text).toContain('c0ffee1');
    expect(task.metadata.firetrident.status).toBe('landed');
    expect(task.artifacts).toHaveLength(1);
    const landing = task.artifacts[0];
    expect(landing.name).toBe('Landing');
    expect(landing.artifactId).toBe(`landing-${first.id}`);
    const why = (path: string) => `${node(0).url}api/colonies/${COLONY}/why?path=${encodeURIComponent(path)}`;
    expect(landing.parts[0].text).toContain('c0ffee1');
    expect(landing.parts[0].text).toContain(why('src/links/limit.ts'));
    const data = landing.parts[1].data;
    expect(landing.parts[1].mediaType).toBe('application/json');
    expect(data).toMatchObject({
      landing: first.id,
      commit: 'c0ffee1',
      worker: alice!.handle,
      files: [
        { path: 'src/links/limit.ts', why: why('src/links/limit.ts'), note: 'the limiter' },
        { path: 'src/links/handler.ts', why: why('src/links/handler.ts'), note: 'uses it' },
      ],
    });
    expect(Date.parse(data.landedAt)).not.toBeNaN();
    // What Muster does not know is not made up.
    expect(data).not.toHaveProperty('proposal');
    expect(data).not.toHaveProperty('whyCommand');
    expect(data).not.toHaveProperty('git');
    // Each link answers which intent wrote the file, and why.
    for (const file of data.files) {
      const res = await fetch(file.why);
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.colony).toBe(COLONY);
      expect(body.path).toBe(file.path);
      expect(body.intents[0]).toMatchObject({
        intent: first.id,
        title: 'Add rate limiting to /api/links',
        why: 'Anonymous callers can flood the links endpoints; cap them at 60 requests a minute.',
        note: file.note,
        landing: first.id,
        commit: 'c0ffee1',
        worker: alice!.handle,
      });
    }
    // The same path natively, at the space's REST route.
    const native = await rest(node(1), 'GET', `api/spaces/${COLONY}/why?path=src/links/limit.ts`);
    expect(native.status).toBe(200);
    expect(native.body.data.map((t: any) => t.id)).toEqual([first.id]);
    expect(native.body.data[0].artifacts[0].name).toBe('Landing');
    // A path no landing wrote: nobody.
    const none = await fetch(why('src/other.ts'));
    expect(((await none.json()) as any).intents).toEqual([]);
  });

  it('a completed task cannot be canceled: -32002 naming its status', async () => {
    const res = await a2a(
      node(1),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: first.id } }),
      colony.planner.token,
    );
    expect(res.body.error.code).toBe(-32002);
    expect(res.body.error.message).toContain('TASK_STATE_COMPLETED');
  });

  it('ListTasks with the seed params lists the working intents, latest first, in 1.0 shapes; landings only when asked', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const made = await a2a(
        node(n),
        declaration(`Working item ${n}`, { footprint: [`work/${n}/**`] }),
        colony.planner.token,
      );
      ids.push(made.body.result.task.id);
      const claimed = await rest(node(n + 1), 'POST', `api/tasks/${made.body.result.task.id}/claim`, {
        token: colony.workers[1]!.token,
        body: {},
      });
      expect(claimed.status).toBe(200);
    }
    const res = await a2a(
      node(0),
      '{"jsonrpc":"2.0","id":3,"method":"ListTasks","params":{"status":"TASK_STATE_WORKING","pageSize":20}}',
    );
    expect(res.status).toBe(200);
    const page = res.body.result;
    expect(page.tasks.map((t: any) => t.id)).toEqual([...ids].reverse());
    expect(page.tasks.every((t: any) => t.status.state === 'TASK_STATE_WORKING')).toBe(true);
    expect(page.tasks[0].metadata.firetrident.status).toBe('in_progress');
    expect(page.tasks[0].status.message.parts[0].text).toContain(`${colony.workers[1]!.handle} is working on intent`);
    expect(page).toMatchObject({ nextPageToken: '', pageSize: 20, totalSize: 3 });
    // The 0.3 spelling of a state, paging, a time, and landings left out unless asked.
    const small = (
      await a2a(
        node(1),
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ListTasks', params: { status: 'working', pageSize: 2 } }),
      )
    ).body.result;
    expect(small.tasks).toHaveLength(2);
    expect(small.nextPageToken).not.toBe('');
    const rest2 = (
      await a2a(
        node(0),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 6,
          method: 'ListTasks',
          params: { status: 'working', pageSize: 2, pageToken: small.nextPageToken },
        }),
      )
    ).body.result;
    expect(rest2.tasks.map((t: any) => t.id)).toEqual([ids[0]]);
    const landed = (
      await a2a(
        node(1),
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ListTasks', params: { status: 'TASK_STATE_COMPLETED' } }),
      )
    ).body.result;
    expect(landed.tasks.map((t: any) => t.id)).toContain(first.id);
    expect(landed.tasks.every((t: any) => t.artifacts === undefined)).toBe(true);
    const withLandings = (
      await a2a(
        node(0),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'ListTasks',
          params: { status: 'TASK_STATE_COMPLETED', includeArtifacts: true, contextId: COLONY },
        }),
      )
    ).body.result;
    expect(withLandings.tasks.find((t: any) => t.id === first.id).artifacts[0].parts[1].data.landing).toBe(first.id);
    const later = (
      await a2a(
        node(1),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'ListTasks',
          params: { statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() },
        }),
      )
    ).body.result;
    expect(later.tasks).toEqual([]);
  });

  it('CancelTask withdraws an intent with the reason, a canceled one answers as it is, and the worker is stopped', async () => {
    const made = (await a2a(node(0), declaration('Second intent', { footprint: ['docs/**'] }), colony.planner.token))
      .body.result.task;
    const claimed = await rest(node(1), 'POST', `api/tasks/${made.id}/claim`, {
      token: colony.workers[0]!.token,
      body: {},
    });
    expect(claimed.status).toBe(200);
    const cancel = `{"jsonrpc":"2.0","id":4,"method":"CancelTask","params":{"id":"${made.id}","metadata":{"reason":"the plan changed"}}}`;
    const res = await a2a(node(1), cancel, colony.planner.token);
    expect(res.status).toBe(200);
    const task = res.body.result;
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    expect(task.status.message.parts[0].text).toContain('the plan changed');
    expect(task.metadata.firetrident.status).toBe('withdrawn');
    expect(task.metadata.muster.cancelReason).toBe('the plan changed');
    const again = await a2a(node(0), cancel, colony.planner.token);
    expect(again.body.result.status.state).toBe('TASK_STATE_CANCELED');
    const heartbeat = await rest(node(0), 'POST', `api/tasks/${made.id}/heartbeat`, {
      token: colony.workers[0]!.token,
      body: {},
    });
    expect(heartbeat.status).toBe(409);
    expect(heartbeat.body.error.code).toBe('LEASE_NOT_HELD');
  });

  it('a twin declares nothing and answers the intent it repeats, saying so; force declares it anyway', async () => {
    const original = (
      await a2a(
        node(0),
        declaration('Cache the link previews', { footprint: ['src/previews/**'] }),
        colony.planner.token,
      )
    ).body.result.task;
    const twin = (
      await a2a(
        node(1),
        declaration('cache the link-previews', { footprint: ['src/previews/cache.ts'] }),
        colony.planner.token,
      )
    ).body.result.task;
    expect(twin.id).toBe(original.id);
    expect(twin.metadata.firetrident.duplicateOf).toBe(original.id);
    expect(twin.status.message.parts[0].text).toMatch(
      new RegExp(`^Nothing new was declared: this message repeats intent ${original.id}`),
    );
    expect(twin.status.message.parts[0].text).toContain('"force": true');
    const forced = (
      await a2a(
        node(1),
        declaration('cache the link-previews', { footprint: ['src/previews/cache.ts'], force: true }),
        colony.planner.token,
      )
    ).body.result.task;
    expect(forced.id).not.toBe(original.id);
    expect(forced.metadata.firetrident).not.toHaveProperty('duplicateOf');
  });

  it('blocks by default up to the wait: answers completed when a worker lands it meanwhile through the other node, else says the wait ran out', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'blocking-1',
          role: 'ROLE_USER',
          parts: [{ text: 'Landed while waited on' }, { data: { footprint: ['wait/**'] } }],
        },
      },
    });
    const waiting = a2a(node(0), body, colony.planner.token);
    let id: string | undefined;
    for (let i = 0; i < 40 && !id; i++) {
      await sleep(50);
      const listed = await a2a(
        node(1),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { status: 'submitted' } }),
      );
      id = listed.body.result.tasks.find((t: any) => t.metadata.firetrident.title === 'Landed while waited on')?.id;
    }
    expect(id).toBeDefined();
    await landNatively(node(1), id!, colony.workers[0]!, { summary: 'done', files: [{ path: 'wait/a.ts' }] });
    const answered = (await waiting).body.result.task;
    expect(answered.id).toBe(id);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');

    const started = Date.now();
    const alone = (
      await a2a(
        node(1),
        declaration('Nobody lands this', { footprint: ['alone/**'] }, { configuration: {} }),
        colony.planner.token,
      )
    ).body.result.task;
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(alone.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(alone.status.message.parts[0].text).toContain('waited 3 s');
  });
});
