/**
 * Forwarding both ways: the hub's calls to an agent's own endpoint (the forward, the sender's
 * follow-ups and cancel, the reads that follow the endpoint's task) are outbox deliveries,
 * leased, retried and sent once from any node; each is written in the endpoint's protocol when
 * it is sent, and what the endpoint answers comes back into the hub's task as the target's
 * `respond`, so the sender sees it through every door.
 */
import { isTerminal } from '../a2a/states.js';
import type { Message } from '../a2a/types.js';
import type { Conversation, Verdict } from '../delivery/outbox.js';
import { readAnswer, readPushed, type RemoteAnswer } from '../delivery/remote/answers.js';
import type { PushBack } from '../delivery/push-back.js';
import { HubError, invalidParams } from '../errors/hub-error.js';
import type { EndpointInterface } from '../delivery/remote/interface.js';
import { callOf, remoteRequest, type RemoteCall } from '../delivery/remote/requests.js';
import { TargetRefused } from '../delivery/safe-client.js';
import {
  cancelDraft,
  FOLLOW_CHANNEL,
  FORWARD_CHANNEL,
  followDraft,
  followUpDraft,
  forwardingRecord,
  type ForwardingRecord,
  type RemoteTaskRef,
} from '../delivery/forward.js';
import type { Caller } from '../identity/caller.js';
import type { Delivery, DeliveryDraft, Store, StoredTask } from '../store/store.js';
import type { Change } from './kind.js';
import { failureBody, mirrorBody, type Mirrored } from './mirror.js';
import { streamConversation } from './stream-follow.js';

/** The most an endpoint's answer may hold: a task with its artifacts, under the hub's own body limit and some. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
/** A follow reads the endpoint's task again after a tenth of its age so far, within these bounds. */
const FOLLOW_MIN_MS = 500;
const FOLLOW_MAX_MS = 10_000;
/** How long a task is followed at most: past this, the hub stops asking and says so. */
const FOLLOW_FOR_MS = 7 * 86_400_000;
/** An endpoint that pushes is still read now and then: a push lost on the way is caught up with. */
const PUSHED_PACE_MS = 30_000;

/** What an endpoint's answer writes into the hub's task (HubWrites.fromEndpoint). */
export interface EndpointWrite {
  /** The target's respond body, when the answer says something new. */
  body?: Record<string, unknown>;
  forwarding?: ForwardingRecord;
  deliveries?: DeliveryDraft[];
}

/** What the hub's task service does for forwards. */
export interface EndpointWrites {
  fromEndpoint(taskId: string, decide: (task: StoredTask) => EndpointWrite | undefined): Promise<void>;
}

const forwardingOf = (task: StoredTask): Partial<ForwardingRecord> | undefined =>
  (task.record.metadata?.['muster'] as { forwarding?: Partial<ForwardingRecord> } | undefined)?.forwarding;

/** The endpoint's task, once the forward's answer named it. */
const remoteOf = (task: StoredTask): RemoteTaskRef | undefined => {
  const forwarding = forwardingOf(task);
  return forwarding?.remoteTaskId
    ? {
        remoteTaskId: forwarding.remoteTaskId,
        ...(forwarding.remoteContextId ? { remoteContextId: forwarding.remoteContextId } : {}),
      }
    : undefined;
};

export class Forwards {
  constructor(
    private readonly store: Pick<Store, 'getTask' | 'getAgent'>,
    /** Where endpoints that push may post their tasks' changes; without it, they are read instead. */
    private readonly back: PushBack | undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Set once the task service exists (it writes what endpoints answer). */
  writes: EndpointWrites | undefined;

  /**
   * A forward's or a follow's conversation with the endpoint; undefined for other deliveries
   * (push); 'done' when there is nothing left to send: the hub's task ended before its forward or
   * its next read went out, or a follow-up finds no task of the endpoint's to go to.
   */
  async conversationOf(delivery: Delivery): Promise<Conversation | 'done' | undefined> {
    if (delivery.channel !== FORWARD_CHANNEL && delivery.channel !== FOLLOW_CHANNEL) return undefined;
    const { iface, following, task } = await this.endpointFor(delivery.taskId);
    const stored = callOf(delivery.body);
    if (stored.method !== 'CancelTask' && isTerminal(task.record.state)) return 'done';
    const addressed = delivery.seq === 1 ? stored : toRemote(stored, remoteOf(task));
    if (!addressed) return 'done';
    const call = await this.withPushBack(addressed, delivery, iface);
    if (delivery.channel === FOLLOW_CHANNEL && following === 'streaming') return this.streamed(delivery, call, iface);
    const pace = following === 'push' ? PUSHED_PACE_MS : undefined;
    return {
      request: remoteRequest(iface, call),
      maxResponseBytes: MAX_ANSWER_BYTES,
      verdict: (status, body) => this.verdict(call, readAnswer(iface, status, body), delivery, pace),
      answered: (done, status, body) =>
        this.answered(done, call, iface, status === undefined || !body ? undefined : readAnswer(iface, status, body)),
    };
  }

  /**
   * The call a change by the sender makes to the endpoint's task: a follow-up message, or a
   * cancel. Only for a task its target's endpoint was sent (or is being sent, while forwarding is on).
   */
  async relayed(task: StoredTask, change: Change, seq: number, caller: Caller): Promise<DeliveryDraft | undefined> {
    const { record } = task;
    const bySender = caller.kind === 'admin' || (caller.kind === 'agent' && caller.handle === record.sender);
    if (!bySender || !record.target) return undefined;
    // Before the endpoint has answered the forward, the call waits behind it (one channel, in order) and is addressed when it goes out.
    const agent = await this.store.getAgent(record.target);
    const url = remoteOf(task) || forwardingOf(task) || agent?.forwarding ? agent?.endpointRpcUrl : undefined;
    if (!url) return undefined;
    const remote = remoteOf(task) ?? { remoteTaskId: '' };
    if (change.state === 'TASK_STATE_CANCELED') return cancelDraft(record, remote, url, seq);
    const message: Message | undefined = change.messages.find((m) => m.role === 'ROLE_USER');
    return message && followUpDraft(record, message, remote, url, seq);
  }

  /** The interface the task's target is spoken to at, and how the task is followed. */
  private async endpointFor(
    taskId: string,
  ): Promise<{ iface: EndpointInterface; following: ForwardingRecord['following']; task: StoredTask }> {
    const task = await this.store.getTask(taskId, { includeArtifacts: false, historyLength: 0 });
    const target = task?.record.target;
    const agent = target === undefined ? undefined : await this.store.getAgent(target);
    if (!task || !agent?.endpointRpcUrl || agent.endpointVerifiedAt === undefined) {
      throw new TargetRefused('invalid-url', `${target ?? 'The target'} has no verified endpoint any more`);
    }
    const iface: EndpointInterface = {
      url: agent.endpointRpcUrl,
      protocol: agent.endpointProtocol ?? 'JSONRPC/1.0',
      follow: agent.endpointFollow ?? 'polling',
    };
    return { iface, following: forwardingOf(task)?.following, task };
  }

  /** A follow by the endpoint's stream (stream-follow.ts); a follow that gives up fails the task as a read would. */
  private streamed(delivery: Delivery, call: RemoteCall, iface: EndpointInterface): Conversation {
    const write = (decide: Parameters<EndpointWrites['fromEndpoint']>[1]) =>
      this.writes?.fromEndpoint(delivery.taskId, decide) ?? Promise.resolve();
    const conversation = streamConversation(
      iface,
      call,
      delivery,
      {
        mirror: (event) =>
          event.kind === 'refused' || event.kind === 'transient' ? Promise.resolve() : write(mirroring(event)),
        pause: () => this.pause(delivery),
        expired: () => this.expired(delivery),
        fallBack: () =>
          write((task) => ({
            forwarding: Object.assign({}, forwardingOf(task), { following: 'polling' }) as ForwardingRecord,
          })),
      },
      this.clock,
    );
    const streamed = conversation.answered;
    return Object.assign(conversation, {
      answered: async (done: Delivery, status: number | undefined, body: Buffer | undefined) => {
        await streamed(done, status, body);
        if (done.state === 'failed') await this.answered(done, call, iface, undefined);
      },
    });
  }

  /** The end of a follow that has run its course without the endpoint's task ending. */
  private expired(delivery: Delivery): Verdict | undefined {
    if (this.clock() - delivery.createdAt <= FOLLOW_FOR_MS) return undefined;
    return {
      kind: 'refused',
      reason: `the task was followed for ${FOLLOW_FOR_MS / 86_400_000} days and has not ended`,
    };
  }

  /** A follow's wait before it reads again: a tenth of its age so far, within bounds. */
  private pause(delivery: Delivery): number {
    return Math.min(FOLLOW_MAX_MS, Math.max(FOLLOW_MIN_MS, (this.clock() - delivery.createdAt) / 10));
  }

  /**
   * The forward to an endpoint that pushes (and does not stream) asks it to push the task's
   * changes to the hub, at the task's own URL with the hub's token for it (delivery/push-back.ts).
   */
  private async withPushBack(call: RemoteCall, delivery: Delivery, iface: EndpointInterface): Promise<RemoteCall> {
    if (!this.back || iface.follow !== 'push' || call.method !== 'SendMessage' || delivery.seq !== 1) return call;
    const config = { url: this.back.url(delivery.taskId), token: await this.back.token(delivery.taskId) };
    const configuration = Object.assign({}, call.params['configuration'] as object, {
      taskPushNotificationConfig: config,
    });
    return Object.assign({}, call, { params: Object.assign({}, call.params, { configuration }) });
  }

  /**
   * What the endpoint pushed about a forwarded task, brought in as a read would be. Only with the
   * hub's token for this task, and only into this task: the URL and the token name it.
   */
  async pushed(taskId: string, token: string | undefined, body: unknown): Promise<void> {
    if (!this.back || !token || !(await this.back.check(taskId, token))) {
      throw new HubError(
        'UNAUTHENTICATED',
        'This push is not for a task the hub forwarded, or its token is not the one the hub gave',
        {
          hint: 'Post with the X-A2A-Notification-Token the forward carried, to the URL it named',
        },
      );
    }
    const { iface } = await this.endpointFor(taskId).catch(() => {
      throw new HubError('NOT_FOUND', `No forwarded task ${taskId} to push to`);
    });
    const event = readPushed(iface, body);
    if (event.kind === 'refused' || event.kind === 'transient')
      throw invalidParams(
        'body',
        'is not an A2A Task or stream response',
        'Post the task, or a status or artifact update of it',
      );
    await this.writes?.fromEndpoint(taskId, mirroring(event));
  }

  private verdict(call: RemoteCall, answer: RemoteAnswer, delivery: Delivery, pace?: number): Verdict {
    switch (answer.kind) {
      case 'transient':
        return { kind: 'retry', reason: answer.reason };
      case 'refused':
        // A read answered with something that is not a task (a proxy's page, say) may pass; an error of the endpoint's own does not.
        if (call.method === 'GetTask' && answer.code >= 200 && answer.code < 300)
          return { kind: 'retry', reason: answer.message };
        return { kind: 'refused', reason: `${answer.message} (${answer.code})` };
      case 'message':
        return { kind: 'done' };
      case 'task': {
        const ended = answer.task.state !== undefined && isTerminal(answer.task.state);
        if (call.method !== 'GetTask' || ended) return { kind: 'done' };
        return this.expired(delivery) ?? { kind: 'again', afterMs: pace ?? this.pause(delivery) };
      }
    }
  }

  /** Brings an attempt's answer into the hub's task, with the forward's record. */
  private async answered(
    done: Delivery,
    call: RemoteCall,
    iface: EndpointInterface,
    answer: RemoteAnswer | undefined,
  ): Promise<void> {
    const follow = done.channel === FOLLOW_CHANNEL;
    // A follow that reads the task again and finds nothing new writes nothing: no event, no record.
    await this.writes?.fromEndpoint(done.taskId, (task) => {
      const before = forwardingOf(task);
      const learned: Partial<ForwardingRecord> = {};
      const write: EndpointWrite = {};
      if (answer?.kind === 'task' || answer?.kind === 'message') {
        if (call.method !== 'CancelTask') write.body = mirrorBody(task, answer);
        if (answer.kind === 'task' && call.method === 'SendMessage') {
          learned.remoteTaskId = answer.task.id;
          if (answer.task.contextId) learned.remoteContextId = answer.task.contextId;
          const ended = answer.task.state !== undefined && isTerminal(answer.task.state);
          if (!before?.following && !ended) {
            learned.following = iface.follow;
            write.deliveries = [followDraft(task.record, { remoteTaskId: answer.task.id }, iface.url)];
          }
        }
      }
      if (done.state === 'failed') {
        learned.remoteError =
          answer?.kind === 'refused'
            ? { code: answer.code, message: answer.message }
            : { code: 0, message: done.lastError ?? 'no answer' };
        // The forward, or the follow, failing ends the task; a refused follow-up or cancel is only recorded: the follow tells the task's state.
        if (done.seq === 1) write.body = failureBody(failureWords(task, call, done, answer));
      }
      if (follow && !write.body && done.state === 'pending') return undefined;
      // A follow's reads are not the forward's attempts: they add only what they learned.
      write.forwarding = follow
        ? (Object.assign({}, before, learned) as ForwardingRecord)
        : forwardingRecord(before, done, learned);
      return write;
    });
  }
}

/** Why the hub gave up on the endpoint, in the sender's terms. */
function failureWords(task: StoredTask, call: RemoteCall, done: Delivery, answer: RemoteAnswer | undefined): string {
  const who = `${task.record.target}'s own A2A endpoint`;
  if (answer?.kind === 'refused') {
    const what = call.method === 'GetTask' ? 'answered a read of its task with' : 'refused the task:';
    return `${who} ${what} ${answer.message} (${answer.code})`;
  }
  return `${who} could not be reached after ${done.attempts} attempts: ${done.lastError ?? 'no answer'}`;
}

/** A sender's call, addressed to the endpoint's task now that its id is known; undefined when the endpoint never named one. */
function toRemote(call: RemoteCall, remote: RemoteTaskRef | undefined): RemoteCall | undefined {
  if (!remote) return undefined;
  if (call.method === 'CancelTask') return Object.assign({}, call, { params: { id: remote.remoteTaskId } });
  const message = Object.assign(
    {},
    call.params['message'] as object,
    { taskId: remote.remoteTaskId },
    remote.remoteContextId ? { contextId: remote.remoteContextId } : {},
  );
  return Object.assign({}, call, { params: Object.assign({}, call.params, { message }) });
}

/**
 * What one event writes, decided again on the task each write leaves (HubWrites.fromEndpoint):
 * a whole task or artifact is compared with what the hub holds, so writing again adds only the
 * rest; an appended piece says nothing of what came before it, so it is written once.
 */
function mirroring(event: Mirrored): (task: StoredTask) => EndpointWrite | undefined {
  let written = false;
  return (task) => {
    if (written && event.kind === 'artifact' && event.append) return undefined;
    written = true;
    const body = mirrorBody(task, event);
    return body && { body };
  };
}
