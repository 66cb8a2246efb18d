/**
 * A worker's side of an intent, over REST with its token: claim an exclusive lease, keep it
 * with heartbeats, report progress, ask the declarer, land, fail or release. Every action but
 * the claim needs the live lease; the task's compare-and-set makes one of two racing claims win.
 */
import { z } from 'zod';
import type { Artifact } from '../../a2a/types.js';
import { parseWith } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';
import { requireAgent } from '../../identity/caller.js';
import { liveHolder, type StoredTask, type TaskRecord } from '../../store/store.js';
import type { Change, KindContext } from '../../hub/kind.js';
import { agentMessage, messageBody } from '../message-body.js';
import { leaseEnd, said } from './facts.js';
import { LEASE_SECONDS } from './limits.js';
import { isoTime } from '../../wire/iso-time.js';

const leaseBody = z
  .object({
    leaseSeconds: z
      .number('must be a whole number of seconds')
      .int('must be a whole number of seconds')
      .min(LEASE_SECONDS.min, 'must be from 1 to 3600')
      .max(LEASE_SECONDS.max, 'must be from 1 to 3600')
      .optional(),
  })
  .strict();
const text = (max: number) =>
  z.string('must be text').trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const messageOnly = z.object({ message: messageBody }).strict();
const landBody = z
  .object({
    summary: text(8000),
    commit: z.string('must be text').trim().min(1).max(200, 'must be at most 200 characters').optional(),
    files: z
      .array(z.object({ path: text(500), why: text(2000).optional() }).strict(), 'must be a list of {"path", "why"?}')
      .max(500, 'must list at most 500 files')
      .optional(),
  })
  .strict();
const failBody = z.object({ reason: text(4000) }).strict();

/** Refuses unless the caller holds the intent's live lease; answers the caller's handle. */
function holding(ctx: KindContext, task: StoredTask, action: string): string {
  const worker = requireAgent(ctx.caller, `${action} an intent`);
  const { record } = task;
  if (record.state === 'TASK_STATE_CANCELED') {
    throw new HubError('LEASE_NOT_HELD', `Intent ${record.id} was withdrawn; stop work on it`, {
      hint: 'Read why with GetTask (metadata.muster.cancelReason)',
      meta: { currentState: record.state },
    });
  }
  if (record.state === 'TASK_STATE_SUBMITTED') {
    throw new HubError(
      'LEASE_NOT_HELD',
      `Intent ${record.id} is open again: no lease on it is live (a lease that runs out without a heartbeat, or a release, reopens it)`,
      {
        hint: `Claim it again with POST /api/tasks/${record.id}/claim`,
        meta: { currentState: record.state },
      },
    );
  }
  if (record.state !== 'TASK_STATE_WORKING' && record.state !== 'TASK_STATE_INPUT_REQUIRED') {
    throw new HubError('LEASE_NOT_HELD', `Intent ${record.id} is ${record.state}; nobody holds it`, {
      hint: 'Claim an open intent first',
      meta: { currentState: record.state },
    });
  }
  const holder = liveHolder(record, ctx.now);
  if (holder === worker) return worker;
  if (holder !== undefined)
    throw new HubError('LEASE_NOT_HELD', `Intent ${record.id} is held by ${holder} until ${leaseEnd(record)}`, {
      hint: 'Claim another intent',
    });
  throw new HubError('LEASE_NOT_HELD', `Your lease on intent ${record.id} ran out at ${leaseEnd(record)}`, {
    hint: `Claim it again with POST /api/tasks/${record.id}/claim while it is open`,
  });
}

/** The worker's lease the body asks for, from now: the hold, and its end as the task's due work (it runs out there). */
const leaseFor = (ctx: KindContext, worker: string, body: unknown): Pick<Change, 'hold' | 'dueAt'> => {
  const { leaseSeconds = LEASE_SECONDS.default } = parseWith(leaseBody, body);
  const until = ctx.now + leaseSeconds * 1000;
  return { hold: { holder: worker, until }, dueAt: until };
};

/** Ends the intent's hold now, its worker still named (who landed it, or was stopped); nothing when none holds it. */
export const holdEnds = (record: TaskRecord, now: number): Pick<Change, 'hold'> =>
  record.holder === undefined ? {} : { hold: { holder: record.holder, until: Math.min(record.heldUntil ?? now, now) } };

/** `mayClaim` refuses a worker the space does not let claim. */
export async function claim(
  ctx: KindContext,
  task: StoredTask,
  body: unknown,
  mayClaim: (worker: string) => Promise<void>,
): Promise<Change> {
  const worker = requireAgent(ctx.caller, 'claim an intent');
  const lease = leaseFor(ctx, worker, body);
  await mayClaim(worker);
  const { record } = task;
  const holder = record.state === 'TASK_STATE_SUBMITTED' ? undefined : liveHolder(record, ctx.now);
  const open =
    record.state === 'TASK_STATE_SUBMITTED' ||
    ((record.state === 'TASK_STATE_WORKING' || record.state === 'TASK_STATE_INPUT_REQUIRED') && holder === undefined);
  if (holder === worker) return { messages: [], artifacts: [], ...lease }; // claimed again: the lease is renewed
  if (!open) {
    if (holder !== undefined)
      throw new HubError('LEASE_HELD', `Intent ${record.id} is held by ${holder} until ${leaseEnd(record)}`, {
        hint: 'Claim another intent from GET /api/spaces/{name}/intents?state=claimable',
      });
    throw new HubError('LEASE_HELD', `Intent ${record.id} is ${record.state}; it cannot be claimed`, {
      hint: 'Claim an open intent',
      meta: { currentState: record.state },
    });
  }
  return {
    state: 'TASK_STATE_WORKING',
    statusMessage: said(
      `${worker} claimed intent ${record.id}; it keeps the lease with heartbeats (metadata.muster.leaseUntil says until when) and lands it.`,
    ),
    messages: [],
    artifacts: [],
    ...lease,
  };
}

export const heartbeat = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  const worker = holding(ctx, task, 'heartbeat on');
  return { messages: [], artifacts: [], ...leaseFor(ctx, worker, body) };
};

export const progress = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  holding(ctx, task, 'report progress on');
  const { message } = parseWith(messageOnly, body);
  return { messages: [agentMessage(message, 'message.parts')], artifacts: [], published: { message } };
};

export const askInput = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  holding(ctx, task, 'ask about');
  const { message } = parseWith(messageOnly, body);
  return {
    state: 'TASK_STATE_INPUT_REQUIRED',
    statusMessage: agentMessage(message, 'message.parts'),
    messages: [],
    artifacts: [],
    published: { message },
  };
};

export const land = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  const worker = holding(ctx, task, 'land');
  const landing = parseWith(landBody, body);
  const { record } = task;
  const landedAt = isoTime(ctx.now);
  const files = landing.files ?? [];
  const artifact: Artifact = {
    artifactId: `landing-${record.id}`,
    name: 'Landing',
    description: 'What landed this intent: the summary, the commit and the files the change wrote.',
    parts: [
      { text: landing.summary },
      {
        data: { ...(landing.commit ? { commit: landing.commit } : {}), files, landedAt, worker },
        mediaType: 'application/json',
      },
    ],
  };
  const where = landing.commit ? ` in commit ${landing.commit}` : '';
  return {
    state: 'TASK_STATE_COMPLETED',
    statusMessage: said(
      `${worker} landed intent ${record.id}${where}, writing ${files.length} file${files.length === 1 ? '' : 's'}; the Landing artifact says what changed.`,
    ),
    messages: [],
    artifacts: [artifact],
    published: { summary: landing.summary, commit: landing.commit, files },
    ...holdEnds(record, ctx.now),
    ...(files.length ? { wrote: files.map((f) => f.path) } : {}), // why?path= finds the intent by them
  };
};

export const fail = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  const worker = holding(ctx, task, 'fail');
  const { reason } = parseWith(failBody, body);
  return {
    state: 'TASK_STATE_FAILED',
    statusMessage: said(`${worker} failed intent ${task.record.id}: ${reason}`),
    messages: [],
    artifacts: [],
    published: { reason },
    ...holdEnds(task.record, ctx.now),
  };
};

export const release = (ctx: KindContext, task: StoredTask, body: unknown): Change => {
  const worker = holding(ctx, task, 'release');
  parseWith(z.object({}).strict(), body);
  return {
    state: 'TASK_STATE_SUBMITTED',
    statusMessage: said(`${worker} released intent ${task.record.id}; it is open again for any worker to claim.`),
    messages: [],
    artifacts: [],
    hold: null,
  };
};

/** A lease that ran out without a heartbeat: the intent is open again (undefined: the lease was kept or the work ended). */
export function leaseExpired(task: StoredTask, now: number): Change | undefined {
  const { record } = task;
  if (record.state !== 'TASK_STATE_WORKING' && record.state !== 'TASK_STATE_INPUT_REQUIRED') return undefined;
  if (record.heldUntil === undefined || record.heldUntil > now) return undefined;
  return {
    state: 'TASK_STATE_SUBMITTED',
    statusMessage: said(
      `The lease of ${record.holder} on intent ${record.id} ran out at ${leaseEnd(record)} without a heartbeat; the intent is open again for any worker to claim.`,
    ),
    messages: [],
    artifacts: [],
    hold: null,
  };
}
