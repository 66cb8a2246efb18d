/**
 * A review task: alice posts a request with the digest her user approved, bob and carol send
 * sealed contributions, and the hub evaluates it once at its (near) deadline.
 */
import type { Task } from '../../../a2a/types.js';
import { REVIEW_OPEN, requestDigest } from '../request.js';
import { HubAnswerError } from '../../../client/errors.js';
import { anonymous, type Agent, type Demo } from '../../../client/demo/cast.js';
import { quote } from '../../../client/demo/transcript.js';
import { getTask, sendData, shortId, stateName } from '../../../client/demo/messages.js';
import type { DemoStep } from '../../../client/demo/step.js';

const SOURCE = 'https://github.com/a2aproject/A2A';
/** How long past the deadline the demo waits for the evaluation before it gives up. */
const EVALUATION_GRACE_MS = 30_000;

function reviewRequest(deadlineS: number) {
  return {
    title: 'Does the A2A spec define ListTasks?',
    question: 'Does the A2A 1.0 specification define a ListTasks method with keyset pagination?',
    sources: [SOURCE],
    acceptance: ['The method is named in the specification', 'Its page token is described'],
    deadline: new Date(Date.now() + deadlineS * 1000).toISOString(),
    min_independent: 2,
    max_contributors: 5,
  };
}

const contributionBy = (agent: Agent) => ({
  verdict: 'source_supported',
  summary: `${agent.name[0]!.toUpperCase()}${agent.name.slice(1)} found ListTasks in the specification, with an opaque page token.`,
  source_urls: [SOURCE],
});

/** A hub whose shortest review deadline is longer than the demo waits refuses the request's deadline. */
const refusedDeadline = (e: unknown): e is HubAnswerError =>
  e instanceof HubAnswerError && e.fields.some((f) => f.field.endsWith('deadline'));

async function evaluation(demo: Demo, id: string, deadline: string): Promise<Task> {
  const until = Date.parse(deadline) + EVALUATION_GRACE_MS;
  for (;;) {
    const task = await getTask(anonymous(demo), '', id);
    if (task.status.state !== 'TASK_STATE_WORKING') return task;
    if (Date.now() > until)
      throw new Error(`the hub did not evaluate review ${id} within ${EVALUATION_GRACE_MS / 1000}s of its deadline`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function describeEvaluation(task: Task): string {
  const part = task.artifacts?.find((a) => a.name === 'Evaluation')?.parts.find((p) => p.data !== undefined);
  const result = (part?.data ?? {}) as { outcome?: string; verdict?: string; contribution_count?: number };
  return `${stateName(task)}, outcome ${result.outcome ?? '?'}${result.verdict ? `, verdict ${result.verdict}` : ''} (${result.contribution_count ?? 0} contributions, now public without their authors)`;
}

export const reviewTask: DemoStep = {
  title: 'A review task: public, sealed contributions, evaluated at the deadline',
  run: async (demo: Demo) => {
    const { alice, bob, carol } = demo.agents;
    const t = demo.transcript;
    const request = reviewRequest(demo.reviewDeadlineS);
    const digest = requestDigest(request);
    t.note(`alice's user approves the request; its digest is ${digest.slice(0, 19)}…`);
    let posted: Task;
    try {
      posted = await sendData(alice.target, {
        skill: REVIEW_OPEN,
        args: { request, approval: { public_input_digest: digest, public_output: true, scope: 'this_task' } },
      });
    } catch (e) {
      if (!refusedDeadline(e)) throw e;
      t.act('alice', `SendMessage review.open, deadline in ${demo.reviewDeadlineS}s`, `refused: ${e.message}`);
      t.note(
        `(skipped: this hub wants review deadlines further away than the demo waits; run it against a hub with a small MUSTER_REVIEW_MIN_DEADLINE_S, or without --url)`,
      );
      return;
    }
    demo.made.push({ what: 'the review task', id: posted.id });
    t.act(
      'alice',
      `SendMessage review.open at the hub's base: ${quote(request.title)}`,
      `task ${shortId(posted.id)}, ${stateName(posted)}, deadline ${request.deadline}`,
    );

    for (const agent of [bob, carol]) {
      const answer = await sendData(agent.target, contributionBy(agent), posted.id);
      const receipt = (answer.metadata?.['muster'] as { receipt?: { contribution?: { id: string } } } | undefined)
        ?.receipt?.contribution;
      t.act(
        agent.name,
        'SendMessage a sealed contribution: source_supported',
        `receipt ${receipt?.id ? shortId(receipt.id) : '(none)'}, sealed until the deadline`,
      );
    }

    const before = await getTask(anonymous(demo), '', posted.id);
    t.act(
      'anyone',
      'GetTask, no token',
      `${stateName(before)}, ${before.history?.length ?? 0} message(s): the contributions cannot be seen yet`,
    );

    t.note(`(waiting for the deadline, ${request.deadline})`);
    const evaluated = await evaluation(demo, posted.id, request.deadline);
    t.act('anyone', 'GetTask after the deadline', describeEvaluation(evaluated));
  },
};
