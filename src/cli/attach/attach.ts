/**
 * `muster attach <handle> --exec "<command>"`: makes a script an A2A agent behind the hub. It holds
 * the agent's live inbox and, for each new task or follow-up, runs the command with the event as
 * JSON on stdin and answers the task with what the command prints (answer.ts) through the respond
 * route. Events of one task are handled one after another, different tasks side by side; a cancel
 * kills the command still running for its task. Each event is handled once: the inbox resumes
 * with Last-Event-ID, and an id already handled is skipped.
 */
import type { Command } from 'commander';
import { inboxTaskId, type InboxEvent } from '../../wire/inbox.js';
import { CliError, EXIT, HubAnswerError, mayPass, UsageError } from '../../client/errors.js';
import { path, request, type Target } from '../../client/http.js';
import { wholeNumber } from '../../client/paging.js';
import { action, client, type Context } from '../../client/run.js';
import { failedAnswer, parseAnswer } from './answer.js';
import { runCommand } from './exec.js';
import { holdInbox } from './inbox-stream.js';

/** Waits before answering again when the hub cannot be reached, in ms (about a minute in all). */
const ANSWER_RETRIES_MS = [500, 1000, 2000, 4000, 8000, 15_000, 30_000];

interface AttachOptions {
  exec: string;
  timeout?: number;
}

/** Event ids remembered as handled: a resume repeats none, so only the latest need keeping, and a long run stays bounded. */
const HANDLED_KEPT = 10_000;

class Attached {
  private readonly handled = new Set<string>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly running = new Map<string, AbortController>();
  private readonly canceled = new Set<string>();

  constructor(
    private readonly target: Target,
    private readonly command: string,
    private readonly timeoutMs: number,
    private readonly report: (line: string, fields: Record<string, unknown>) => void,
  ) {}

  /** Takes one delivered event: a cancel at once, the others after the events of their task before them. */
  take(id: string, event: InboxEvent): void {
    if (this.handled.has(id)) return;
    this.handled.add(id);
    if (this.handled.size > HANDLED_KEPT) this.handled.delete(this.handled.values().next().value!); // the oldest
    const taskId = inboxTaskId(event);
    if (event.kind === 'cancel') {
      this.canceled.add(taskId);
      const run = this.running.get(taskId);
      run?.abort();
      this.report(
        `task ${taskId}: canceled${event.reason ? ` (${event.reason})` : ''}${run ? '; stopped the command' : ''}`,
        { taskId, event: 'cancel', stopped: run !== undefined },
      );
      return;
    }
    const queued = (this.queues.get(taskId) ?? Promise.resolve()).then(() => this.handle(taskId, event));
    this.queues.set(taskId, queued);
    void queued.finally(() => this.queues.get(taskId) === queued && this.queues.delete(taskId));
  }

  /** Stops every running command and waits for the queues to empty. */
  async stop(): Promise<void> {
    for (const run of this.running.values()) run.abort();
    await Promise.allSettled([...this.queues.values()]);
  }

  private async handle(taskId: string, event: Exclude<InboxEvent, { kind: 'cancel' }>): Promise<void> {
    if (this.canceled.has(taskId)) return;
    const stop = new AbortController();
    this.running.set(taskId, stop);
    const outcome = await runCommand(
      this.command,
      JSON.stringify(event),
      { MUSTER_TASK_ID: taskId, MUSTER_EVENT: event.kind },
      this.timeoutMs,
      stop.signal,
    );
    this.running.delete(taskId);
    if ('stopped' in outcome) return;
    const answer = outcome.ok ? parseAnswer(outcome.stdout, event.kind === 'task') : { problem: outcome.why };
    if ('problem' in answer) return this.respond(taskId, event.kind, failedAnswer(answer.problem), answer.problem);
    try {
      await this.respond(taskId, event.kind, answer.body);
    } catch (error) {
      // The hub refused the answer itself (bad parts, a state it cannot move to): the task fails, saying why.
      if (!(error instanceof HubAnswerError) || error.status !== 400) throw error;
      await this.respond(
        taskId,
        event.kind,
        failedAnswer(`the hub refused the command's answer: ${error.message}`),
        error.message,
      );
    }
  }

  private async respond(taskId: string, kind: string, body: Record<string, unknown>, problem?: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const task = (await request(this.target, `api/tasks/${path(taskId)}/respond`, { body })) as {
          status?: { state?: string };
        };
        const state = task.status?.state ?? String(body['state'] ?? 'replied');
        return this.report(`task ${taskId}: answered the ${kind} with ${state}${problem ? ` (${problem})` : ''}`, {
          taskId,
          event: kind,
          state,
          ...(problem ? { problem } : {}),
        });
      } catch (error) {
        if (mayPass(error) && attempt < ANSWER_RETRIES_MS.length) {
          await new Promise((r) => setTimeout(r, ANSWER_RETRIES_MS[attempt]));
          continue;
        }
        if (error instanceof HubAnswerError && error.status === 400 && !problem) throw error;
        return this.report(`task ${taskId}: could not answer (${(error as Error).message})`, {
          taskId,
          event: kind,
          error: (error as Error).message,
        });
      }
    }
  }
}

export function attachCommand(program: Command): void {
  client(
    program,
    'attach <handle>',
    "hold <handle>'s live inbox and answer each new task and follow-up with a command (see docs/relay.md)",
    { json: 'print JSON Lines: one object for each handled event (the story of the connection stays on stderr)' },
  )
    .requiredOption(
      '--exec <command>',
      'run through the shell for each event: the event as JSON on stdin, the answer as JSON on stdout',
    )
    .option(
      '--timeout <seconds>',
      'the longest one run of the command may take before the task fails (default 300)',
      wholeNumber(1, 86_400),
    )
    .action(
      action(async (ctx: Context<AttachOptions>, handle: string) => {
        if (!ctx.target.token)
          throw new UsageError(
            `muster attach needs ${handle}'s own token`,
            'Pass --token, set MUSTER_TOKEN, or run muster login',
          );
        // Whose token this is; a hub that cannot be reached yet is waited for by the inbox, as after a drop.
        const me = (await request(ctx.target, 'api/me').catch((e: unknown) => {
          if (mayPass(e)) return undefined;
          throw e;
        })) as { kind?: string; handle?: string } | undefined;
        if (me && (me.kind !== 'agent' || me.handle !== handle)) {
          throw new CliError(
            'WRONG_AGENT',
            `The token is not ${handle}'s own (it is ${me.handle ?? me.kind ?? 'unknown'}'s)`,
            EXIT.usage,
            `Pass ${handle}'s own agent token: the live inbox is the agent's own feed`,
          );
        }
        const say = (line: string) => void process.stderr.write(`muster attach: ${line}\n`); // the connection's story, apart from the report on stdout
        const report = (line: string, fields: Record<string, unknown>) =>
          process.stdout.write(`${ctx.json ? JSON.stringify(fields) : line}\n`);
        const attached = new Attached(ctx.target, ctx.options.exec, (ctx.options.timeout ?? 300) * 1000, report);
        const quit = new AbortController();
        const onSignal = () => quit.abort();
        process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
        try {
          for await (const { id, event } of holdInbox(ctx.target, quit.signal, say)) attached.take(id, event);
        } finally {
          await attached.stop();
          process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
        }
      }),
    );
}
