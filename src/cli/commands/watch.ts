/**
 * `muster watch TASK`: follows a task's stream (SubscribeToTask over SSE) until the task ends.
 * A dropped stream is opened again with Last-Event-ID, so no update is missed or shown twice;
 * with --json each update is one JSON line (JSON Lines), the one exception to one document.
 */
import type { Command } from 'commander';
import { isTerminal } from '../../a2a/states.js';
import type { StreamResponse } from '../../a2a/types.js';
import { CliError, EXIT, HubAnswerError, printError, UnreachableError } from '../../client/errors.js';
import { partsText, renderTaskSummary, speaker, stateLabel, truncate } from '../../client/format.js';
import { path, readAnswer, request, send, type Target } from '../../client/http.js';
import { action, client, type Context } from '../../client/run.js';
import { sseBlocks } from '../../client/sse.js';
import type { MusterMetadata, Task } from '../../client/wire.js';

/** Waits between attempts to reopen a dropped stream, in ms; past the last one the hub counts as unreachable. */
const RECONNECT_DELAYS = [200, 500, 1000, 2000, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000]; // about a minute

/** One update as a line for people: a status message with who said it (of `task`: its parties). */
function describe(update: StreamResponse, task: Pick<Task, 'metadata'>): string | undefined {
  if ('statusUpdate' in update) {
    const { status } = update.statusUpdate;
    const text = status.message
      ? `, ${speaker(task, status.message)}: ${truncate(partsText(status.message.parts), 200)}`
      : '';
    return `${status.timestamp ?? ''}  ${stateLabel(status.state)}${text}`.trim();
  }
  if ('artifactUpdate' in update) {
    const { artifact } = update.artifactUpdate;
    return `artifact ${artifact.name ?? artifact.artifactId}: ${truncate(partsText(artifact.parts), 200)}`;
  }
  return undefined;
}

/** A stream ends with the status update into a terminal state (a resumed snapshot may show it already: the replay follows). */
const endsStream = (update: StreamResponse): boolean =>
  'statusUpdate' in update && isTerminal(update.statusUpdate.status.state);

/** A task addressed to an agent is followed at that agent's base; any other at the hub's. */
const baseOf = (task: Task): string => {
  const m = (task.metadata?.['muster'] as MusterMetadata | undefined) ?? {};
  return m.to ? `agents/${path(m.to)}/` : '';
};

class Follower {
  private lastId: number | undefined;
  /** The task as first read: who its parties are, for each status message's speaker. */
  private parties: Pick<Task, 'metadata'> = {};

  constructor(
    private readonly ctx: Context,
    private readonly target: Target,
    private readonly id: string,
  ) {}

  private print(update: StreamResponse): void {
    if (this.ctx.json) return void process.stdout.write(`${JSON.stringify(update)}\n`);
    const line = 'task' in update ? this.summary(update.task) : describe(update, this.parties);
    if (line) process.stdout.write(`${line}\n`);
  }

  /** The task in brief, and its last word with who said it. */
  private summary(task: Task): string {
    const said = task.status.message;
    const last = said ? `\n${speaker(task, said)}: ${truncate(partsText(said.parts), 200)}` : '';
    return `${renderTaskSummary(task)}${last}`;
  }

  /** Opens the stream once and reads it to its end; answers whether the task ended. */
  private async follow(base: string): Promise<boolean> {
    const { response, sentToken } = await send(this.target, base, {
      body: { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: this.id } },
      headers: {
        'a2a-version': '1.0',
        accept: 'text/event-stream',
        ...(this.lastId !== undefined ? { 'last-event-id': String(this.lastId) } : {}),
      },
      signal: new AbortController().signal, // a stream may stay open for hours: no timeout
    });
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
      await readAnswer(this.target, response, sentToken); // a refusal before the stream started
      throw new CliError(
        'NOT_A_HUB',
        `${this.target.url} answered SubscribeToTask without a stream; is it a Muster hub?`,
        EXIT.unreachable,
      );
    }
    try {
      return await this.read(response.body, sentToken);
    } catch (error) {
      if (error instanceof CliError) throw error;
      return false; // the connection dropped mid-stream
    }
  }

  /** Prints a stream's updates; answers whether the task ended. */
  private async read(body: ReadableStream<Uint8Array>, sentToken: boolean): Promise<boolean> {
    for await (const block of sseBlocks(body)) {
      if (block.data === undefined) continue;
      const data = JSON.parse(block.data) as { result?: StreamResponse; error?: unknown };
      if (data.error !== undefined) throw new HubAnswerError(200, data, sentToken);
      const update = data.result;
      if (!update) continue;
      // A resumed stream's snapshot (no id) repeats what was printed: only its later events are new.
      if (!('task' in update) || this.lastId === undefined) this.print(update);
      if (block.id !== undefined) this.lastId = Number(block.id);
      if (endsStream(update)) return true;
    }
    return false;
  }

  /** Follows the task until it ends, opening the stream again whenever it drops. */
  async run(): Promise<void> {
    const task = (await request(this.target, `api/tasks/${path(this.id)}`)) as Task;
    this.parties = task;
    if (isTerminal(task.status.state)) return this.print({ task });
    const base = baseOf(task);
    for (let failures = 0; ;) {
      try {
        if (await this.follow(base)) return;
        failures = 0; // the stream was open and dropped: open it again, after the shortest wait
        await new Promise((r) => setTimeout(r, RECONNECT_DELAYS[0]));
      } catch (error) {
        if (error instanceof HubAnswerError && error.code === 'UNSUPPORTED_OPERATION' && this.lastId !== undefined) {
          // It ended while the stream was down, with nothing left to replay: its final state, once.
          const final = (await request(this.target, `api/tasks/${path(this.id)}`)) as Task;
          return this.print({ statusUpdate: { taskId: final.id, contextId: final.contextId, status: final.status } });
        }
        if (!(error instanceof UnreachableError) || failures >= RECONNECT_DELAYS.length) throw error;
        await new Promise((r) => setTimeout(r, RECONNECT_DELAYS[failures++]));
      }
    }
  }
}

export function watchCommand(program: Command): void {
  client(program, 'watch <taskId>', 'follow a task: print each update until it ends (reconnects if the stream drops)', {
    json: 'print JSON Lines: each update as the hub sent it ({"task": …} first), and {"error": …} as the last line on failure',
  }).action(
    action(async (ctx: Context, id: string) => {
      try {
        await new Follower(ctx, ctx.target, id).run();
      } catch (error) {
        printError(error, ctx.json ? 'line' : false); // JSON Lines: the failure is one line too
      }
    }),
  );
}
