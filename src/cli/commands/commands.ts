import type { Command } from 'commander';
import { UsageError } from '../../client/errors.js';
import type { KindClient } from '../../kinds/kind-client.js';
import {
  renderMailbox,
  renderRegistration,
  renderTask,
  renderTaskSummary,
  type SectionOf,
} from '../../client/format.js';
import { path, request } from '../../client/http.js';
import { action, client, type Context } from '../../client/run.js';
import { nextCommand, pageOf, pageOptions, wholeNumber } from '../../client/paging.js';
import { anyState, respondState, wordOrState } from '../../client/states.js';
import { sendCommand } from './send-command.js';
import type { MailboxEntry, Registration, RestPage, Task } from '../../client/wire.js';

/** The hub answers every history; `--history N` keeps the last N, as A2A historyLength does. */
function keepHistory(task: Task, n: number | undefined): Task {
  if (n === undefined || !task.history) return task;
  const { history, ...rest } = task;
  const kept = n === 0 ? [] : history.slice(-n);
  return kept.length > 0 ? { ...rest, history: kept } : rest;
}

interface MailboxOptions {
  agent?: string;
  state?: string;
  limit?: number;
  cursor?: string;
}

function mailbox(program: Command, box: 'inbox' | 'sent', description: string): void {
  pageOptions(
    client(program, box, description, { operator: true }).option(
      '--state <state>',
      'open, all, or a state such as working or input-required (default open)',
      wordOrState(['open', 'all']),
    ),
    'tasks',
  )
    .option('--agent <handle>', `whose ${box}: an agent your operator token owns (the admin's, any)`)
    .action(
      action(async (ctx: Context<MailboxOptions>) => {
        const { state, limit, cursor, agent } = ctx.options;
        const page = pageOf(
          (await request(ctx.target, `api/${box}`, {
            query: { agent, state, limit, cursor },
          })) as RestPage<MailboxEntry>,
        );
        const next = nextCommand(
          [
            box,
            ...(agent ? ['--agent', agent] : []),
            ...(state ? ['--state', state] : []),
            ...(limit ? ['--limit', String(limit)] : []),
          ],
          page,
        );
        ctx.show(page, (p) => renderMailbox(p, box, state ?? 'open', next));
      }),
    );
}

/**
 * Client sub-commands for direct tasks (register, send, get, inbox, sent, respond, cancel); `get`
 * shows a task of a kind in `kinds` that brings a section in that section.
 */
export function clientCommands(program: Command, kinds: readonly KindClient[]): void {
  const sections = kinds.flatMap((k): SectionOf[] => (k.section ? [k.section] : []));
  client(
    program,
    'register <handle>',
    'register an agent; prints its token once (with --operator-token, an agent you then own)',
    { token: false, admin: true, operator: true },
  )
    .option('--name <name>', 'display name')
    .option('--description <text>', 'what the agent does')
    .option('--endpoint <url>', "the base URL of the agent's own A2A endpoint")
    .action(
      action(
        async (
          ctx: Context<{
            name?: string;
            description?: string;
            endpoint?: string;
            adminToken?: string;
            operatorToken?: string;
          }>,
          handle: string,
        ) => {
          const { name, description, endpoint, adminToken } = ctx.options;
          // Never the agent token: a stale MUSTER_TOKEN must not turn registration into a 401. An
          // operator token (the target's, when given) registers an agent the operator owns.
          const answer = (await request(ctx.target, 'api/agents', {
            body: {
              handle,
              ...(name !== undefined ? { name } : {}),
              ...(description !== undefined ? { description } : {}),
              ...(endpoint !== undefined ? { endpoint } : {}),
            },
            token: adminToken || ctx.options.operatorToken || undefined,
          })) as Registration;
          ctx.show(answer, renderRegistration);
        },
      ),
    );

  sendCommand(program);

  client(program, 'get <taskId>', "show a task: state, history and artifacts (an operator reads its agents' tasks)", {
    operator: true,
  })
    .option('--history <n>', 'show only the last n messages of the history', wholeNumber(0))
    .action(
      action(async (ctx: Context<{ history?: number }>, id: string) => {
        const task = keepHistory((await request(ctx.target, `api/tasks/${path(id)}`)) as Task, ctx.options.history);
        ctx.show(task, (t) => renderTask(t, sections));
      }),
    );

  mailbox(program, 'inbox', 'list tasks sent to you');
  mailbox(program, 'sent', 'list tasks you sent');

  client(
    program,
    'respond <taskId> <state> [text...]',
    'answer a task sent to you: working, input-required, completed, failed or rejected',
  )
    .option('--expected-state <state>', 'only if the task is still in this state', anyState)
    .option('--artifact-text <text>', 'attach an artifact holding this text')
    .option('--artifact-name <name>', 'the name of that artifact')
    .option('--idempotency-key <key>', 'a retry with the same key is applied once')
    .action(
      action(
        async (
          ctx: Context<{
            expectedState?: string;
            artifactText?: string;
            artifactName?: string;
            idempotencyKey?: string;
          }>,
          id: string,
          state: string,
          text: string[],
        ) => {
          const { expectedState, artifactText, artifactName, idempotencyKey } = ctx.options;
          if (artifactName !== undefined && artifactText === undefined)
            throw new UsageError('--artifact-name needs --artifact-text');
          const body = {
            state: respondState(state),
            ...(text.length > 0 ? { message: { parts: [{ text: text.join(' ') }] } } : {}),
            ...(artifactText !== undefined
              ? {
                  artifacts: [
                    { ...(artifactName !== undefined ? { name: artifactName } : {}), parts: [{ text: artifactText }] },
                  ],
                }
              : {}),
            ...(expectedState !== undefined ? { expectedState } : {}),
          };
          const headers: Record<string, string> =
            idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {};
          ctx.show(
            (await request(ctx.target, `api/tasks/${path(id)}/respond`, { body, headers })) as Task,
            renderTaskSummary,
          );
        },
      ),
    );

  client(program, 'cancel <taskId>', 'cancel a task')
    .option('--reason <reason>', 'why, kept on the task')
    .action(
      action(async (ctx: Context<{ reason?: string }>, id: string) => {
        const { reason } = ctx.options;
        const task = (await request(ctx.target, `api/tasks/${path(id)}/cancel`, {
          body: reason !== undefined ? { reason } : {},
        })) as Task;
        ctx.show(task, renderTaskSummary);
      }),
    );
}
