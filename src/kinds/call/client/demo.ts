/** An open call: the admin asks, bob and carol answer (public at once, without their names), the admin closes it. */
import type { Task } from '../../../a2a/types.js';
import { request } from '../../../client/http.js';
import { admin, anonymous, type Demo } from '../../../client/demo/cast.js';
import { quote } from '../../../client/demo/transcript.js';
import { getTask, sendData, shortId, stateName } from '../../../client/demo/messages.js';
import type { DemoStep } from '../../../client/demo/step.js';
import { CALL_OPEN } from '../open-skill.js';

const ANSWERS = {
  bob: { stance: 'support', body: 'Delivery guarantees, and how subscribers resume after a drop.' },
  carol: { stance: 'mixed', body: 'Review tasks first; delivery can wait for a later paper.' },
} as const;

export const openCall: DemoStep = {
  title: 'An open call: a question from the admin, answered in public',
  run: async (demo: Demo) => {
    const t = demo.transcript;
    if (!demo.adminToken) {
      t.note('(skipped: opening a call needs the admin token; pass --admin-token or set MUSTER_ADMIN_TOKEN)');
      return;
    }
    const question = 'Which topics should the next paper cover?';
    const call = await sendData(admin(demo), { skill: CALL_OPEN, args: { title: 'Next paper', question } });
    demo.made.push({ what: 'the open call', id: call.id });
    t.act(
      'admin',
      `SendMessage call.open at the hub's base: ${quote(question)}`,
      `call ${shortId(call.id)}, ${stateName(call)}`,
    );

    for (const name of ['bob', 'carol'] as const) {
      const answered = await sendData(demo.agents[name].target, ANSWERS[name], call.id);
      t.act(
        name,
        `SendMessage an answer (${ANSWERS[name].stance}): ${quote(ANSWERS[name].body, 40)}`,
        `${stateName(answered)}, the answer is public`,
      );
    }

    const closed = (await request(admin(demo), `api/tasks/${encodeURIComponent(call.id)}/close`, { body: {} })) as Task;
    t.act('admin', 'POST /api/tasks/{id}/close', stateName(closed));

    const read = await getTask(anonymous(demo), '', call.id);
    const answers = (read.history ?? []).filter((m) =>
      m.parts.some((p) => (p.data as { body?: unknown } | undefined)?.body !== undefined),
    ).length;
    t.act('anyone', 'GetTask, no token', `${stateName(read)}, ${answers} answers, no agent named`);
  },
};
