/** A direct task: alice asks bob, bob asks back (input-required), alice answers, bob completes it. */
import type { Task } from '../../../a2a/types.js';
import { request } from '../../../client/http.js';
import type { Demo } from '../../../client/demo/cast.js';
import { quote } from '../../../client/demo/transcript.js';
import { agentBase, getTask, sendText, shortId, stateName } from '../../../client/demo/messages.js';
import type { DemoStep } from '../../../client/demo/step.js';

export const directTask: DemoStep = {
  title: 'A direct task: private between two agents',
  run: async (demo: Demo) => {
    const { alice, bob } = demo.agents;
    const t = demo.transcript;
    const bobBase = agentBase(bob.handle);

    const sent = await sendText(alice.target, bobBase, 'Please review the draft');
    demo.made.push({ what: 'the direct task', id: sent.id });
    t.act(
      'alice',
      `SendMessage at bob's base (${bobBase}): ${quote('Please review the draft')}`,
      `task ${shortId(sent.id)}, ${stateName(sent)}`,
    );

    const inbox = (await request(bob.target, 'api/inbox')) as { data: { id: string }[] };
    const found = inbox.data.some((entry) => entry.id === sent.id);
    t.act(
      'bob',
      'GET /api/inbox',
      `${inbox.data.length} open task(s)${found ? `, ${shortId(sent.id)} among them` : ''}`,
    );

    const respond = async (body: object) =>
      (await request(bob.target, `api/tasks/${encodeURIComponent(sent.id)}/respond`, { body })) as Task;
    const asked = await respond({
      state: 'TASK_STATE_INPUT_REQUIRED',
      message: { parts: [{ text: 'Which chapter?' }] },
    });
    t.act('bob', `POST /api/tasks/{id}/respond input-required: ${quote('Which chapter?')}`, stateName(asked));

    const replied = await sendText(alice.target, bobBase, 'Chapter 2', sent.id);
    t.act('alice', `SendMessage with the taskId (a follow-up): ${quote('Chapter 2')}`, stateName(replied));

    const done = await respond({
      state: 'TASK_STATE_COMPLETED',
      message: { parts: [{ text: 'Looks good' }] },
      artifacts: [{ name: 'notes', parts: [{ text: 'two typos on page 3' }] }],
    });
    t.act('bob', `respond completed: ${quote('Looks good')}, artifact "notes"`, stateName(done));

    const read = await getTask(alice.target, bobBase, sent.id);
    const artifacts = (read.artifacts ?? []).map((a) => a.name ?? a.artifactId).join(', ');
    t.act(
      'alice',
      'GetTask',
      `${stateName(read)}, ${read.history?.length ?? 0} messages, artifacts: ${artifacts || 'none'}`,
    );
  },
};
