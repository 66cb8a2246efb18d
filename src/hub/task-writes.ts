/**
 * The task writes a caller asks for: SendMessage (a new task, or a message on one), CancelTask
 * and a kind's own actions. Each asks the task's kind what the request changes and hands that to
 * the committer; a blocking send then waits for the task to settle.
 */
import { isTerminal } from '../a2a/states.js';
import type { SendMessageParams, Task } from '../a2a/types.js';
import { parseWith } from '../a2a/validate.js';
import { forwardOf } from '../delivery/forward.js';
import { HubError, invalidParams } from '../errors/hub-error.js';
import { callerName, requireActor, uncheckedToken, type Caller } from '../identity/caller.js';
import type { StoredTask } from '../store/store.js';
import type { Actor } from './actor.js';
import { blockingAnswer } from './blocking.js';
import { mergeMetadata, openingWrite } from './changes.js';
import type { Following } from './following.js';
import { doorPrint, fingerprintOf, restKey, type Idempotency } from './idempotency.js';
import { inboxOfOpening } from './inbox.js';
import type { Change, Kind, KindContext } from './kind.js';
import type { KindContexts } from './kind-contexts.js';
import type { Kinds } from './kinds.js';
import { screenPublished } from './publishing.js';
import { checkParts } from '../wire/limits.js';
import { configSchema, type PushConfigs } from './push.js';
import type { TaskCommitter } from './task-committer.js';
import { FULL, trimHistory, type TaskReads } from './task-reads.js';
import type { View } from './view.js';

/** History in a SendMessage answer when the caller does not say (GetTask gives it all). */
const ANSWER_HISTORY = 20;

export interface TaskWritesDeps {
  kinds: Kinds;
  view: View;
  push: Pick<PushConfigs, 'check' | 'assertSettable' | 'create'>;
  reads: Pick<TaskReads, 'get' | 'read' | 'visible' | 'present'>;
  committer: TaskCommitter;
  contexts: KindContexts;
  /** A blocking send's wait for its task to settle. */
  following: Following;
  /** Checks a caller's token now, when it is still to be checked (Identity.confirm). */
  confirm: (caller: Caller) => Promise<void>;
}

export class TaskWrites {
  constructor(private readonly deps: TaskWritesDeps) {}

  /**
   * `gone`, asked only when the send blocks, fires when the caller stops waiting for the answer.
   * `key`: the write's own idempotency key (an operation id), in place of the messageId: a retry
   * with the same key and parts, whatever its messageId, is answered the task it wrote.
   */
  async send(asked: Actor, params: SendMessageParams, gone?: () => AbortSignal, key?: string): Promise<Task> {
    const { kinds, push: configs, reads } = this.deps;
    const { message } = params;
    const accepts = params.configuration?.acceptedOutputModes;
    const actor: Actor = accepts ? Object.assign({}, asked, { acceptedOutputModes: accepts }) : asked;
    checkParts(message.parts, 'message.parts');
    requireActor(actor.caller, 'SendMessage', 'send messages');
    const opens = message.taskId === undefined;
    const opener = opens ? kinds.opener(actor.door, message) : undefined;
    const worksOnOpen = opener?.worksOnOpen === true;
    const pushField = 'configuration.taskPushNotificationConfig';
    const pushInput = params.configuration?.taskPushNotificationConfig;
    if (pushInput && worksOnOpen) {
      throw invalidParams(
        pushField,
        'cannot be set here: the hub settles this task as it opens, so there is nothing later to push',
        'Leave it out: the answer is the task as it ended',
      );
    }
    // Without an id of its own, the config is named after the message, so a retried send sets it again rather than twice.
    const push =
      pushInput &&
      parseWith(
        configSchema,
        { id: `message-${message.messageId}`, ...pushInput, taskId: message.taskId ?? '(new)' },
        pushField,
      );
    // The token is checked in the task's own read or write, unless something else comes first: a
    // push config's address and write, or a kind's work as the task opens.
    if (push || worksOnOpen) await this.deps.confirm(actor.caller);
    if (push) await configs.check(push.url, `${pushField}.url`);
    if (push && message.taskId !== undefined) await configs.assertSettable(actor.caller, message.taskId, push.id);
    const idem: Idempotency =
      key === undefined
        ? {
            scope: `message:${callerName(actor.caller)}`,
            key: message.messageId,
            fingerprint: fingerprintOf([doorPrint(actor.door), message]),
          }
        : {
            scope: `operation:${callerName(actor.caller)}`,
            key,
            fingerprint: fingerprintOf([doorPrint(actor.door), message.taskId ?? null, message.parts]),
          };
    const task = await this.once(
      actor,
      idem,
      () =>
        opens
          ? this.open(actor, params, idem, opener)
          : this.change(
              actor,
              message.taskId!,
              (kind, ctx, t) => {
                if (message.contextId !== undefined && message.contextId !== t.record.contextId) {
                  throw invalidParams(
                    'message.contextId',
                    `does not match the task's context, ${t.record.contextId}`,
                    "Omit contextId, or send the task's own",
                  );
                }
                return kind.followUp(ctx, t, message);
              },
              idem,
            ),
      !opens || worksOnOpen,
    );
    if (push) await configs.create(actor.caller, task.id, push, true);
    const kind = kinds.byName.get((task.metadata?.['muster'] as { kind: string }).kind);
    const blocking = { task, kind, configuration: params.configuration, reread: () => reads.get(actor, task.id) };
    const answer = await blockingAnswer(this.deps.following, gone ? Object.assign(blocking, { gone }) : blocking);
    return trimHistory(answer, params.configuration?.historyLength ?? ANSWER_HISTORY);
  }

  async cancel(actor: Actor, id: string, reason: string | undefined, key?: string): Promise<Task> {
    const idem = key === undefined ? undefined : restKey(actor.caller, key, ['cancel', id, reason]);
    const run = () =>
      this.change(
        actor,
        id,
        async (kind, ctx, t) => {
          const change = await kind.cancel(ctx, t, reason); // the kind refuses callers who may not cancel, whatever the state
          if (t.record.state === 'TASK_STATE_CANCELED') return undefined; // canceling twice answers the task as it is
          if (isTerminal(t.record.state)) {
            throw new HubError('TASK_NOT_CANCELABLE', `Task ${id} is ${t.record.state} and cannot be canceled`, {
              meta: { currentState: t.record.state },
            });
          }
          return reason ? withCancelReason(change, reason) : change;
        },
        idem,
      );
    return idem ? this.once(actor, idem, run) : run();
  }

  /** A kind-specific action on a task (e.g. `respond` on a direct task). */
  async act(actor: Actor, id: string, action: string, body: unknown, key?: string): Promise<Task> {
    const idem = key === undefined ? undefined : restKey(actor.caller, key, [action, id, body]);
    const run = () =>
      this.change(
        actor,
        id,
        (kind, ctx, t) => {
          const handler = Object.hasOwn(kind.actions, action) ? kind.actions[action] : undefined; // not `constructor` & co.
          if (!handler) throw new HubError('UNSUPPORTED_OPERATION', `${kind.name} tasks have no '${action}' action`);
          return handler(ctx, t, body);
        },
        idem,
      );
    return idem ? this.once(actor, idem, run) : run();
  }

  /** Opens a task of `kind`, the kind that takes this message at this door (Kinds.opener), if any. */
  private async open(
    actor: Actor,
    params: SendMessageParams,
    idem: Idempotency,
    kind: Kind | undefined,
  ): Promise<Task> {
    const { view, contexts, reads } = this.deps;
    const ctx = contexts.of(actor);
    if (kind) {
      const opening = await kind.open(ctx, params.message);
      if ('twinOf' in opening) return view.twin(opening.twinOf, opening.note, FULL);
      screenPublished(opening.visibility, opening.published);
      // The opening event carries the task without its history: the messages are stored once, in the history.
      const { write, task } = openingWrite(opening, ctx.now, (t) =>
        view.render(t, { includeArtifacts: false, historyLength: 0 }),
      );
      let rendered: Task | undefined; // the answer, rendered once for the inbox event and the caller
      const full = () => (rendered ??= view.render(task, FULL));
      if (actor.acceptedOutputModes?.length) task.record.acceptedOutputModes = actor.acceptedOutputModes;
      const inbox = inboxOfOpening(task.record, full);
      if (inbox) write.inbox = inbox;
      const forward = opening.target === undefined ? undefined : forwardOf(task, opening.target);
      if (forward) write.forward = forward;
      write.receipt = Object.assign({}, idem, { result: { taskId: task.record.id } });
      const token = uncheckedToken(actor.caller);
      if (token) write.liveToken = token.hash;
      if (token?.gate) write.tokenGate = token.gate;
      const made = await this.deps.committer.create(opening, write, (tasks) => contexts.lockedReads(tasks));
      if ('twinOf' in made) return view.twin(made.twinOf, made.note, FULL);
      if ('holder' in made) {
        const twin = reads.visible(actor, await reads.read(actor, made.holder, FULL), made.holder);
        return view.twin(twin, opening.openKey!.twinNote(twin), FULL);
      }
      if (token) token.checked = true;
      return full();
    }
    throw new HubError('UNSUPPORTED_OPERATION', 'Nothing at this base takes a new task', {
      hint: 'Send a direct task to an agent\'s base, http://HOST:PORT/agents/{handle}/, or declare work at a space\'s base, /spaces/{name}/; at the hub\'s base, a data part {"skill": "review.open", ...} posts a review',
    });
  }

  /**
   * Reads a task, asks its kind what the request changes, and writes that compare-and-set on
   * the version it read; on a lost race it reads again (a few times) rather than lose a write.
   */
  private async change(
    actor: Actor,
    id: string,
    decide: (kind: Kind, ctx: KindContext, task: StoredTask) => Change | undefined | Promise<Change | undefined>,
    idem?: Idempotency,
  ): Promise<Task> {
    requireActor(actor.caller, 'Changing a task', 'change, answer, claim or cancel a task');
    const { committer, reads } = this.deps;
    return committer.settled(id, async () => {
      const current = reads.visible(actor, await reads.read(actor, id, FULL), id);
      const kind = this.deps.kinds.byName.get(current.record.kind)!;
      const ctx = this.deps.contexts.of(actor);
      const change = await decide(kind, ctx, current);
      const receipt = idem && Object.assign({}, idem, { result: { taskId: id } });
      if (!change) return reads.present(actor, current);
      screenPublished(current.record.visibility, change.published);
      if (change.sealed) {
        await committer.seal(change.sealed, change.quotas, receipt);
        return reads.present(actor, current);
      }
      return reads.present(actor, await committer.commit(current, change, ctx.now, receipt ? { receipt } : {}, actor));
    });
  }

  /** Runs a keyed write once (TaskCommitter.once); a retry's answer is the task as it stands now. */
  private once(actor: Actor, idem: Idempotency, run: () => Promise<Task>, precheck?: boolean): Promise<Task> {
    return this.deps.committer.once(idem, run, (taskId) => this.deps.reads.get(actor, taskId), precheck);
  }
}

/** The cancel's reason joins the task's `metadata.muster`, beside what the kind's change sets there, and is published with it. */
const withCancelReason = (change: Change, reason: string): Change =>
  Object.assign({}, change, {
    metadata: mergeMetadata(change.metadata, { muster: { cancelReason: reason } }),
    published: Object.assign({}, change.published, { reason }),
  });
