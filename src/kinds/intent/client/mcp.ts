/**
 * The intent kind's MCP tools (see src/mcp/tool.ts): a space's own (space-mcp.ts), list a
 * space's intents, declare one, withdraw it, and a worker's loop (claim, heartbeat, progress,
 * ask, land, fail, release). They send what the
 * CLI sends (client.ts) and check the same ranges (limits.ts) in their input schemas; every
 * answer says where the intent stands, when the lease ends, and what to do next.
 */
import { z } from 'zod';
import { LEGACY_STATE } from '../../../a2a/states.js';
import { stateLabel } from '../../../client/format.js';
import type { Task } from '../../../client/wire.js';
import { listAnswer, taskAnswer } from '../../../mcp/answers.js';
import { tool, type MusterTool, type ToolAnswer } from '../../../mcp/tool.js';
import { path, request } from '../../../client/http.js';
import { factsOf, type IntentRow } from './format.js';
import { spaceTools } from './space-mcp.js';
import { actOn, declareIntent, listIntents } from './calls.js';
import { LEASE_SECONDS, PRIORITY } from '../limits.js';

const id = z
  .string()
  .min(1, "must be the intent's id")
  .describe("the intent's id (its task id, as muster_intents or muster_intent_declare answered it)");
const leaseSeconds = z
  .number()
  .int('must be a whole number of seconds')
  .min(LEASE_SECONDS.min, `must be from ${LEASE_SECONDS.min} to ${LEASE_SECONDS.max} seconds`)
  .max(LEASE_SECONDS.max, `must be from ${LEASE_SECONDS.min} to ${LEASE_SECONDS.max} seconds`)
  .optional()
  .describe(
    `how long the lease lasts from now, in seconds (${LEASE_SECONDS.min} to ${LEASE_SECONDS.max}, default ${LEASE_SECONDS.default})`,
  );
const text = () => z.string().trim().min(1, 'must not be empty');
const words = (what: string) => text().describe(what);
const LISTED = ['claimable', 'open', 'all', ...Object.values(LEGACY_STATE)] as const;

/** What a worker holding the intent does next, with the lease's end in it. */
const keepWorking = (task: Task): string => {
  const until = factsOf(task).leaseUntil;
  return `send muster_intent_heartbeat before the lease ends${until ? ` (${until})` : ''}, report with muster_intent_progress, ask the declarer with muster_intent_ask, and muster_intent_land when done (or muster_intent_fail, muster_intent_release)`;
};

/**
 * An intent as a tool answers it: what happened and what to do next in the text (the hub's own
 * status sentence speaks A2A methods, so it is left to the task), and the task with its facts
 * (space, title, worker, leaseUntil…) as data.
 */
const intentAnswer = (task: Task, next: string, said: string): ToolAnswer => ({
  ...taskAnswer(task, next, { intent: factsOf(task) }),
  text: `${said} Next: ${next}.`,
});

const intents = tool({
  name: 'muster_intents',
  title: "A space's work intents",
  description:
    "List the work intents of a space. Use it to find work to claim: by default the claimable ones, highest priority first, then oldest (the order to take them in). Pass state 'open', 'all' or a task state to see others.",
  input: z.object({
    space: words('the space, by name'),
    state: z
      .enum(LISTED)
      .optional()
      .describe(
        'which intents: claimable (the default), open (not ended), all, or one state such as working or completed',
      ),
    cursor: z.string().optional().describe('the nextCursor of the previous answer, for the next page'),
  }),
  public: true,
  readOnly: true,
  async run({ space, state, cursor }, call) {
    const page = await listIntents(call, space, { state, cursor });
    const shown = state ?? 'claimable';
    const more = page.nextCursor ? `; for more, call muster_intents again with cursor ${page.nextCursor}` : '';
    const next =
      page.items.length === 0
        ? undefined
        : `${shown === 'claimable' ? 'claim the first with muster_intent_claim {id}' : 'read one with muster_get_task {id}'}${more}`;
    const line = (i: IntentRow) =>
      `${i.id} [${stateLabel(i.state)}, priority ${i.priority}${i.worker ? `, ${i.worker}` : ''}] ${i.title} (${i.footprint.join(' ')})`;
    // listAnswer says `next` in the text once; saying it here too would say it twice.
    return listAnswer(`${shown} intents in space ${space}`, page.items, line, {
      space,
      state: shown,
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      ...(next ? { next } : {}),
    });
  },
});

const declare = tool({
  name: 'muster_intent_declare',
  title: 'Declare a work intent',
  description:
    "Declare a piece of work in a space so a worker claims it (you must be the space's owner or an orchestrator). Use it to hand work out: the title says what, footprint the paths it will touch. A repeat of an open or just-landed intent answers that intent unless force is true.",
  input: z.object({
    space: words('the space to declare it in, by name'),
    title: text()
      .refine((t) => !t.includes('\n'), 'must be one line: put the detail in why')
      .describe('what the work is, one line'),
    why: z.string().optional().describe('why the work is needed: the detail after the title'),
    footprint: z
      .array(z.string().min(1, 'must not be empty'), 'must be a list of paths or globs')
      .min(1, 'must name at least one path or glob')
      .describe('the paths or globs the work will touch, e.g. ["src/links/**"]'),
    acceptance: z.array(z.string().min(1, 'must not be empty')).optional().describe('checks the work must pass'),
    priority: z
      .number()
      .int('must be a whole number')
      .min(PRIORITY.min, `must be from ${PRIORITY.min} to ${PRIORITY.max}`)
      .max(PRIORITY.max, `must be from ${PRIORITY.min} to ${PRIORITY.max}`)
      .optional()
      .describe(
        `${PRIORITY.min} to ${PRIORITY.max}, higher is claimed first (default ${PRIORITY.min}; an orchestrator is capped at the space's cap)`,
      ),
    force: z.boolean().optional().describe('declare it even if it repeats an open or just-landed intent'),
  }),
  async run({ space, ...declaration }, call) {
    const task = await declareIntent(call, space, declaration);
    const f = factsOf(task);
    if (f.duplicateOf !== undefined) {
      return intentAnswer(
        task,
        'follow that intent with muster_wait_task {id}, or declare again with force: true',
        `Declared nothing: this repeats intent ${task.id} (${stateLabel(task.status.state)}), "${f.title ?? ''}".`,
      );
    }
    const capped =
      declaration.priority !== undefined && f.priority !== undefined && f.priority < declaration.priority
        ? `, capped: you asked for ${declaration.priority}`
        : '';
    return intentAnswer(
      task,
      `follow it with muster_wait_task {id: "${task.id}"} until a worker lands it or asks; answer a question with muster_reply {id: "${task.id}", text}, or withdraw it with muster_intent_withdraw {id: "${task.id}", reason}`,
      `Declared intent ${task.id} in space ${task.contextId} at priority ${f.priority ?? '?'}${capped}; it is open for a worker to claim.`,
    );
  },
});

const claim = tool({
  name: 'muster_intent_claim',
  title: 'Claim a work intent',
  description:
    'Claim an intent to work on it: an exclusive lease (default 600 s) that you keep with muster_intent_heartbeat. Use it on an intent muster_intents lists as claimable; claiming one you hold renews the lease.',
  input: z.object({ id, leaseSeconds }),
  async run({ id: intent, leaseSeconds: seconds }, call) {
    const task = await actOn(call, intent, 'claim', seconds !== undefined ? { leaseSeconds: seconds } : {});
    return intentAnswer(
      task,
      keepWorking(task),
      `Claimed intent ${task.id} (now working); the lease runs until ${factsOf(task).leaseUntil ?? '?'}.`,
    );
  },
});

const heartbeat = tool({
  name: 'muster_intent_heartbeat',
  title: 'Keep the lease on an intent',
  description:
    'Keep the lease on an intent you hold. Use it before the lease ends (its end is in every answer), or the intent goes back to any worker.',
  input: z.object({ id, leaseSeconds }),
  async run({ id: intent, leaseSeconds: seconds }, call) {
    const task = await actOn(call, intent, 'heartbeat', seconds !== undefined ? { leaseSeconds: seconds } : {});
    return intentAnswer(
      task,
      keepWorking(task),
      `The lease on intent ${task.id} runs until ${factsOf(task).leaseUntil ?? '?'}.`,
    );
  },
});

const progress = tool({
  name: 'muster_intent_progress',
  title: 'Report progress on an intent',
  description:
    'Tell the declarer how the work goes, on an intent you hold (added to its history; the state stays). Use it at each step worth knowing.',
  input: z.object({ id, text: words('what you did or found, for the declarer') }),
  async run({ id: intent, text }, call) {
    const task = await actOn(call, intent, 'progress', { message: text });
    return intentAnswer(task, keepWorking(task), `Progress noted on intent ${task.id}.`);
  },
});

const ask = tool({
  name: 'muster_intent_ask',
  title: 'Ask the declarer about an intent',
  description:
    'Ask the declarer a question about an intent you hold. Use it when you cannot go on without an answer: the intent goes input-required until they answer, and you keep the lease with heartbeats meanwhile.',
  input: z.object({ id, text: words('the question') }),
  async run({ id: intent, text }, call) {
    const task = await actOn(call, intent, 'input-required', { message: text });
    const until = factsOf(task).leaseUntil;
    const next = `wait for the answer with muster_wait_task {id, untilState: "working"}, and send muster_intent_heartbeat before the lease ends${until ? ` (${until})` : ''}`;
    return intentAnswer(task, next, `Asked the declarer about intent ${task.id} (now input-required): ${text}`);
  },
});

const land = tool({
  name: 'muster_intent_land',
  title: 'Land a work intent',
  description:
    'Finish an intent you hold. Use it when the work is done: say what the change does, and give the commit and the files it wrote. The intent completes with a Landing artifact.',
  input: z.object({
    id,
    summary: words('what the change does'),
    commit: z.string().min(1, 'must not be empty').optional().describe('the commit that holds the change'),
    files: z
      .array(
        z
          .object({ path: words('a file the change wrote'), why: z.string().optional().describe('why it changed') })
          .strict(),
        'must be a list of {path, why?}',
      )
      .optional()
      .describe('the files the change wrote, each {path, why?}'),
  }),
  async run({ id: intent, summary, commit, files }, call) {
    const task = await actOn(call, intent, 'land', {
      summary,
      ...(commit !== undefined ? { commit } : {}),
      ...(files ? { files } : {}),
    });
    return intentAnswer(task, 'look for more work with muster_intents', `Landed intent ${task.id} (now completed).`);
  },
});

const fail = tool({
  name: 'muster_intent_fail',
  title: 'Give up a work intent',
  description:
    'Fail an intent you hold. Use it when the work cannot be done, saying why. It ends: nobody claims it again (use muster_intent_release to hand it back instead).',
  input: z.object({ id, reason: words('why the work cannot be done') }),
  async run({ id: intent, reason }, call) {
    const task = await actOn(call, intent, 'fail', { reason });
    return intentAnswer(
      task,
      'look for other work with muster_intents',
      `Failed intent ${task.id} (now failed): nobody claims it again.`,
    );
  },
});

const release = tool({
  name: 'muster_intent_release',
  title: 'Let go of a work intent',
  description:
    'Let go of an intent you hold. Use it when you stop without finishing: it is open again for any worker to claim.',
  input: z.object({ id }),
  async run({ id: intent }, call) {
    const task = await actOn(call, intent, 'release', {});
    return intentAnswer(
      task,
      'look for other work with muster_intents',
      `Released intent ${task.id}: it is open again for any worker.`,
    );
  },
});

const withdraw = tool({
  name: 'muster_intent_withdraw',
  title: 'Withdraw a work intent',
  description:
    'Withdraw an intent you declared (or any in a space you own): it ends as canceled, its worker stops, and the reason is kept on it. Use it when the work is no longer wanted; to change the work, withdraw it and declare it again.',
  input: z.object({ id, reason: words('why it is withdrawn, kept on the intent for its worker to read').optional() }),
  async run({ id: intent, reason }, call) {
    const body = reason !== undefined ? { reason } : {};
    const task = (await request(call.target, `api/tasks/${path(intent)}/cancel`, { body })) as Task;
    return intentAnswer(
      task,
      `declare it again with muster_intent_declare {space: "${task.contextId}", title, footprint} to redo it`,
      `Withdrew intent ${task.id} (now ${stateLabel(task.status.state)})${reason !== undefined ? `: ${reason}` : ''}.`,
    );
  },
});

export const intentTools: readonly MusterTool[] = [
  ...spaceTools,
  intents,
  declare,
  claim,
  heartbeat,
  progress,
  ask,
  land,
  fail,
  release,
  withdraw,
];
