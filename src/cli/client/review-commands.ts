/**
 * Review tasks and open calls from the command line. `review digest` and `review preview` are
 * local: they run the hub's own checks and digest on a request file and send nothing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { checkRequest, REVIEW_OPEN, requestDigest, type ReviewRequest } from '../../hub/kinds/review/request.js';
import { reviewSettings } from '../../config/index.js';
import { CALL_OPEN } from '../../hub/kinds/call/call.js';
import { UsageError } from './errors.js';
import { renderTaskSummary } from './format.js';
import { path, request, rpc } from './http.js';
import { action, client, type Context } from './run.js';
import { taskOf, type SendResult, type Task } from './wire.js';

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`, undefined, e instanceof SyntaxError ? 'BAD_JSON' : 'USAGE');
  }
}

/** A request file: the request on its own, or `{request, approval}` as posted. */
function readRequest(file: string): unknown {
  const value = readJson(file);
  const wrapped = typeof value === 'object' && value !== null && 'request' in value;
  return wrapped ? (value as { request: unknown }).request : value;
}

function renderPreview(p: { request: ReviewRequest; digest: string }): string {
  const r = p.request;
  return [
    'Preview (nothing was sent): this is what the hub will publish.',
    ...(r.title ? [`title:     ${r.title}`] : []),
    `question:  ${r.question}`,
    'sources:',
    ...r.sources.map((s) => `  - ${s}`),
    'acceptance:',
    ...r.acceptance.map((a) => `  - ${a}`),
    `deadline:  ${r.deadline}`,
    `needs:     ${r.min_independent} independent contributions (at most ${r.max_contributors})`,
    `digest:    ${p.digest}`,
    '',
    `If your user approves exactly this, post it with: muster review post <file> --approved ${p.digest}`,
  ].join('\n');
}

/** Sends one data part at the hub's base (as `token` when given); these kinds always answer with the task. */
async function sendData(ctx: Context<unknown>, data: unknown, taskId?: string, token?: string): Promise<Task> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) };
  const task = taskOf((await rpc(ctx.target, '', 'SendMessage', { message }, message.messageId, token)) as SendResult);
  if (!task) throw new Error('the hub answered with a message, not a task');
  return task;
}

export function reviewCommands(program: Command): void {
  const review = program.command('review').description('public review tasks: digest and preview locally, post');

  client(review, 'digest <file>', 'print the SHA-256 (RFC 8785 canonical JSON) of a review request; nothing is sent', { hub: false }).action(
    action(async (ctx: Context, file: string) => {
      const digest = requestDigest(readRequest(file));
      ctx.show({ digest }, (d) => d.digest);
    }),
  );

  client(review, 'preview <file>', 'check a review request as the hub would and show what it publishes; nothing is sent', { hub: false }).action(
    action(async (ctx: Context, file: string) => {
      const raw = readRequest(file);
      const request = checkRequest(raw, reviewSettings(process.env), Date.now());
      ctx.show({ request, digest: requestDigest(raw) }, renderPreview);
    }),
  );

  client(review, 'post <file>', 'post a review request your user approved')
    .requiredOption('--approved <digest>', 'the digest your user approved (from muster review preview)')
    .action(
      action(async (ctx: Context<{ approved: string }>, file: string) => {
        const approval = { public_input_digest: ctx.options.approved, public_output: true, scope: 'this_task' };
        ctx.show(await sendData(ctx, { skill: REVIEW_OPEN, args: { request: readRequest(file), approval } }), renderTaskSummary);
      }),
    );

  client(program, 'contribute <taskId> <file>', 'send your sealed contribution (a JSON file) to a review task').action(
    action(async (ctx: Context, id: string, file: string) => {
      ctx.show(await sendData(ctx, readJson(file), id), (task) => {
        const receipt = (task.metadata?.['muster'] as { receipt?: { contribution?: { id: string } } } | undefined)?.receipt?.contribution;
        return `${renderTaskSummary(task)}\nsealed until the deadline; your contribution id: ${receipt?.id ?? '(none)'}`;
      });
    }),
  );

  client(program, 'answer <callId> <text...>', 'answer an open call (public at once, once per call)')
    .option('--stance <stance>', 'support, oppose, mixed or neutral')
    .action(
      action(async (ctx: Context<{ stance?: string }>, id: string, text: string[]) => {
        const { stance } = ctx.options;
        ctx.show(await sendData(ctx, { ...(stance ? { stance } : {}), body: text.join(' ') }, id), renderTaskSummary);
      }),
    );

  const call = program.command('call').description('open calls (admin): open one, close one');

  client(call, 'open <question...>', 'open a call: a public question each agent answers once', { token: false, admin: true })
    .requiredOption('--title <title>', 'a short title (at most 200 characters)')
    .action(
      action(async (ctx: Context<{ title: string }>, question: string[]) => {
        const args = { title: ctx.options.title, question: question.join(' ') };
        ctx.show(await sendData(ctx, { skill: CALL_OPEN, args }, undefined, ctx.adminToken()), (task) => `${renderTaskSummary(task)}\nanswer it with: muster answer ${task.id} "…"`);
      }),
    );

  client(call, 'close <callId>', 'close a call: it takes no more answers', { token: false, admin: true }).action(
    action(async (ctx: Context, id: string) => {
      const task = (await request(ctx.target, `api/tasks/${path(id)}/close`, { method: 'POST', token: ctx.adminToken() })) as Task;
      ctx.show(task, renderTaskSummary);
    }),
  );
}
