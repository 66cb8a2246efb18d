/**
 * A hub full of things for the web feed to show, made over its own doors (A2A with the SDK client
 * and raw JSON-RPC, REST): agents, an open call with an answer, a space with a landed and a
 * claimable intent, a public and a private board, a private direct task. Every agent-written
 * field carries hostile markup naming where it was put; the private things carry a marker the
 * feed must never show.
 */
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, register, rest, rpc, type Registered } from './hub.js';

/** Markup that would run if any page put it in as HTML: it sets window.__pwned and opens a dialog. */
export const hostile = (field: string) =>
  `<script>window.__pwned='${field}'</script><img src=x onerror="window.__pwned='${field}'"><a href="javascript:alert('${field}')">${field}</a>`;

/** The same in fewer characters, for short fields (a name): a script and an image that would alert. */
export const hostileShort = (field: string) => `<script>window.__pwned='${field}'</script><img src=x onerror=alert(1)>`;

export interface Seeded {
  alice: Registered;
  bob: Registered;
  worker: Registered;
  callId: string;
  landedId: string;
  claimableId: string;
  publicBoardId: string;
  /** What no page may show: the direct task's id and text, the private board's id and title, the memory call's id. */
  secrets: string[];
  directTaskId: string;
  directText: string;
}

const dataMessage = (data: unknown, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...extra },
});

async function ok(call: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const res = await call;
  if (res.status >= 300 || res.body?.error) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result ?? res.body;
}

export async function seedHub(hub: { url: string }): Promise<Seeded> {
  const alice = await register(hub, 'alice', {
    name: hostileShort('an'),
    description: hostile('agent-description'),
    endpoint: 'https://alice.example/a2a/',
  });
  const [bob, worker, orch] = await Promise.all([register(hub, 'bob'), register(hub, 'worker'), register(hub, 'orch')]);
  await ok(
    rest(hub, 'PATCH', 'api/agents/alice', {
      token: alice.token,
      body: {
        skills: [
          {
            id: 'summarize',
            name: hostileShort('sn'),
            description: hostile('skill-description'),
            examples: [hostile('skill-example')],
          },
        ],
        tags: ['writer'],
      },
    }),
    'profile',
  );

  const call = await ok(
    rpc(
      hub.url,
      'SendMessage',
      dataMessage({ skill: 'call.open', args: { title: hostile('call-title'), question: hostile('call-question') } }),
      { token: ADMIN_TOKEN },
    ),
    'call',
  );
  const callId = (call.task ?? call).id;
  await ok(
    rpc(hub.url, 'SendMessage', dataMessage({ stance: 'support', body: hostile('call-answer') }, { taskId: callId }), {
      token: bob.token,
    }),
    'answer',
  );

  await ok(
    rest(hub, 'POST', 'api/spaces', {
      token: alice.token,
      body: { name: 'links', description: hostile('space-description') },
    }),
    'space',
  );
  await ok(
    rest(hub, 'PUT', 'api/spaces/links/members/orch', { token: alice.token, body: { role: 'orchestrator' } }),
    'orchestrator',
  );
  await ok(
    rest(hub, 'PUT', 'api/spaces/links/members/worker', { token: alice.token, body: { role: 'worker' } }),
    'worker',
  );
  const declare = async (title: string, footprint: string) =>
    (
      await ok(
        rpc(
          `${hub.url}spaces/links/`,
          'SendMessage',
          {
            message: {
              messageId: randomUUID(),
              role: 'ROLE_USER',
              parts: [{ text: title }, { data: { footprint: [footprint] } }],
            },
            configuration: { returnImmediately: true },
          },
          { token: orch.token },
        ),
        'declare',
      )
    ).task;
  const landed = await declare(`Land this ${hostile('intent-title')}`, 'src/links/**');
  const claimable = await declare('Claim this next', 'docs/**');
  await ok(
    rest(hub, 'POST', `api/tasks/${landed.id}/claim`, { token: worker.token, body: { leaseSeconds: 60 } }),
    'claim',
  );
  await ok(
    rest(hub, 'POST', `api/tasks/${landed.id}/land`, {
      token: worker.token,
      body: {
        summary: hostile('landing-summary'),
        commit: 'abc1234',
        files: [{ path: `src/${hostile('file-name')}.ts` }],
      },
    }),
    'land',
  );

  const board = async (title: string, visibility: string) =>
    ok(
      rpc(
        `${hub.url}memory/`,
        'SendMessage',
        dataMessage({
          skill: 'board.create',
          args: {
            title,
            visibility,
            cards: [{ title: hostile('card-title'), text: hostile('card-text') }, 'Second card', 'Third card'],
            connections: [
              { from: 0, to: 1, type: 'leads_to' },
              { from: 1, to: 2 },
            ],
          },
        }),
        { token: alice.token },
      ),
      'board',
    );
  const publicBoard = await board(`Public ${hostile('board-title')}`, 'public');
  const privateTitle = `PRIVATE-BOARD-${randomUUID()}`;
  const privateBoard = await board(privateTitle, 'private');
  const boardIdOf = (task: any) =>
    task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.data).data.board.id as string;

  const directText = `PRIVATE-DIRECT-${randomUUID()}`;
  const direct = await ok(
    rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: directText }] },
        configuration: { returnImmediately: true },
      },
      { token: alice.token },
    ),
    'direct',
  );
  const directTaskId = (direct.task ?? direct).id as string;
  return {
    alice,
    bob,
    worker,
    callId,
    landedId: landed.id,
    claimableId: claimable.id,
    publicBoardId: boardIdOf(publicBoard.task ?? publicBoard),
    secrets: [
      directTaskId,
      directText,
      privateTitle,
      boardIdOf(privateBoard.task ?? privateBoard),
      (privateBoard.task ?? privateBoard).id,
    ],
    directTaskId,
    directText,
  };
}
