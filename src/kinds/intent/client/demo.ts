/** A work intent: alice makes a space, bob declares work there over A2A, carol claims and lands it over REST. */
import type { Task } from '../../../a2a/types.js';
import { request } from '../../../client/http.js';
import { anonymous, type Demo } from '../../../client/demo/cast.js';
import { quote } from '../../../client/demo/transcript.js';
import { getTask, sendMessage, shortId, stateName } from '../../../client/demo/messages.js';
import type { DemoStep } from '../../../client/demo/step.js';

const TITLE = 'Add rate limiting to /api/links';

export const workIntent: DemoStep = {
  title: 'A work intent: declared at a space, claimed with a lease, landed',
  run: async (demo: Demo) => {
    const { alice, bob, carol } = demo.agents;
    const t = demo.transcript;
    // A space name is taken once per hub: on a shared hub it takes the agents' suffix.
    const name = `work${alice.handle.slice('alice'.length)}`;
    const space = (await request(alice.target, 'api/spaces', {
      body: { name, description: 'Where the demo hands out work' },
    })) as { a2a: string };
    t.act('alice', `POST /api/spaces ${quote(name)}`, `201, base ${space.a2a}`);
    for (const [agent, role] of [
      [bob, 'orchestrator'],
      [carol, 'worker'],
    ] as const) {
      await request(alice.target, `api/spaces/${name}/members/${encodeURIComponent(agent.handle)}`, {
        method: 'PUT',
        body: { role },
      });
    }
    t.act('alice', `PUT members: bob orchestrator, carol worker`, '200, 200');

    const base = `spaces/${name}/`;
    const parts = [
      { text: `${TITLE}\nAnonymous callers flood the links endpoints.` },
      { data: { footprint: ['src/links/**'] } },
    ];
    const declared = await sendMessage(bob.target, base, parts, undefined, { returnImmediately: true });
    demo.made.push({ what: 'the work intent', id: declared.id });
    t.act(
      'bob',
      `SendMessage at the space's base: ${quote(TITLE)}, footprint src/links/**`,
      `intent ${shortId(declared.id)}, ${stateName(declared)}`,
    );

    const act = async (action: string, body: object) =>
      (await request(carol.target, `api/tasks/${encodeURIComponent(declared.id)}/${action}`, { body })) as Task;
    const claimed = await act('claim', { leaseSeconds: 300 });
    t.act('carol', 'POST /api/tasks/{id}/claim, a 300 s lease', stateName(claimed));
    await act('progress', { message: 'Limiter written; tests next.' });
    t.act('carol', `POST …/progress: ${quote('Limiter written; tests next.')}`, 'added to the history');
    const landed = await act('land', {
      summary: 'Rate limited /api/links at 60 a minute.',
      commit: 'abc1234',
      files: [{ path: 'src/links/limit.ts' }],
    });
    t.act('carol', 'POST …/land with a summary, a commit and a file', stateName(landed));

    const read = await getTask(anonymous(demo), base, declared.id);
    const landing = (read.artifacts ?? []).some((a) => a.name === 'Landing');
    t.act(
      'anyone',
      "GetTask at the space's base, no token",
      `${stateName(read)}${landing ? ', with its Landing artifact' : ''}`,
    );
  },
};
