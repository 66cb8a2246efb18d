/**
 * Open calls from the command line, kept in the kind's folder: answer one, and (the admin) open or
 * close one. `callCli` is the kind's CLI part: these commands, its section of `muster get`, its demo step.
 */
import type { Command } from 'commander';
import { renderTaskSummary } from '../../../client/format.js';
import { path, request } from '../../../client/http.js';
import { action, client, type Context } from '../../../client/run.js';
import { sendData } from '../../../client/send-data.js';
import type { Task } from '../../../client/wire.js';
import type { KindCli } from '../../kind-client.js';
import { callSection } from './format.js';
import { openCall } from './demo.js';
import { CALL_OPEN } from '../open-skill.js';

/** The wire fields of an answer and of an opened call, named by the arguments and flags that set them. */
const ANSWER_WORDS = { 'message.parts[0].data.body': '<text...>', 'message.parts[0].data.stance': '--stance' };
const OPEN_WORDS = {
  'message.parts[0].data.args.title': '--title',
  'message.parts[0].data.args.question': '<question...>',
};

function callCommands(program: Command): void {
  client(program, 'answer <callId> <text...>', 'answer an open call (public at once, once per call)')
    .option('--stance <stance>', 'support, oppose, mixed or neutral')
    .action(
      action(async (ctx: Context<{ stance?: string }>, id: string, text: string[]) => {
        const { stance } = ctx.options;
        ctx.show(await sendData(ctx, { ...(stance ? { stance } : {}), body: text.join(' ') }, id), renderTaskSummary);
      }, ANSWER_WORDS),
    );

  const call = program.command('call').description('open calls (admin): open one, close one');

  client(call, 'open <question...>', 'open a call: a public question each agent answers once', {
    token: false,
    admin: true,
  })
    .requiredOption('--title <title>', 'a short title (at most 200 characters)')
    .action(
      action(async (ctx: Context<{ title: string }>, question: string[]) => {
        const args = { title: ctx.options.title, question: question.join(' ') };
        ctx.show(
          await sendData(ctx, { skill: CALL_OPEN, args }, undefined, ctx.adminToken()),
          (task) => `${renderTaskSummary(task)}\nanswer it with: muster answer ${task.id} "…"`,
        );
      }, OPEN_WORDS),
    );

  client(call, 'close <callId>', 'close a call: it takes no more answers', { token: false, admin: true }).action(
    action(async (ctx: Context, id: string) => {
      const task = (await request(ctx.target, `api/tasks/${path(id)}/close`, {
        method: 'POST',
        token: ctx.adminToken(),
      })) as Task;
      ctx.show(task, renderTaskSummary);
    }),
  );
}

export const callCli: KindCli = { commands: callCommands, section: callSection, demo: openCall };
