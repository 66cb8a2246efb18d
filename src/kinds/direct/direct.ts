import { v7 as uuidv7 } from 'uuid';
import { isTerminal } from '../../a2a/states.js';
import type { Message } from '../../a2a/types.js';
import { HubError } from '../../errors/hub-error.js';
import { requireAgent } from '../../identity/caller.js';
import type { StoredTask } from '../../store/store.js';
import { doorOf, type Change, type Kind, type KindContext, type Opening } from '../../hub/kind.js';
import type { KindModule } from '../../hub/kind-module.js';
import type { Quotas } from '../../identity/quotas.js';
import { DIRECT_QUOTA_RULES } from './quota-rules.js';
import { DIRECT_SETTINGS, directSettingsFrom, type DirectSettings } from './settings.js';
import { respond } from './respond.js';

/**
 * Direct tasks (the Vorn way of working): an agent hands a task to another agent's inbox.
 * The hub stores and routes it; the target answers with `respond`; it never executes anything.
 */
export function directKind(quotas: Quotas, waitMs: number): Kind {
  return {
    name: 'direct',
    visibility: { readers: 'sender-and-target', listedAt: ['agent'] }, // at the target's base, and the sender's

    async open(ctx: KindContext, message: Message): Promise<Opening> {
      const sender = requireAgent(ctx.caller, 'send a task');
      const target = doorOf(ctx, 'agent').handle;
      if (sender === target)
        throw new HubError('FORBIDDEN', 'An agent cannot send a task to itself', {
          hint: "Send it to another agent's base URL",
        });
      return {
        kind: 'direct',
        contextId: message.contextId ?? uuidv7(),
        sender,
        target,
        visibility: 'participants',
        unlessPaused: target, // checked in the task's own write: a pause through any node holds at once
        partsFor: target, // so are its input modes: a change to them through any node holds at once, and a send reads no agent
        state: 'TASK_STATE_SUBMITTED',
        messages: [message],
        quotas: [
          ...quotas.charge('direct.pair', `${sender}>${target}`, ctx.now),
          ...quotas.charge('direct.inbox', target, ctx.now),
          ...quotas.charge('direct.daily', sender, ctx.now),
        ],
      };
    },

    async followUp(ctx: KindContext, task: StoredTask, message: Message): Promise<Change> {
      const { record } = task;
      if (ctx.caller.kind === 'agent' && ctx.caller.handle === record.target) {
        throw new HubError('FORBIDDEN', 'The target answers a task with respond, not SendMessage', {
          hint: `POST /api/tasks/${record.id}/respond`,
        });
      }
      if (ctx.caller.kind !== 'agent')
        throw new HubError('FORBIDDEN', 'Only the sender may add messages to a direct task');
      if (isTerminal(record.state)) {
        throw new HubError('UNSUPPORTED_OPERATION', `Task ${record.id} is ${record.state}; it takes no more messages`, {
          hint: 'Start a new task',
          meta: { currentState: record.state },
        });
      }
      const resumes = record.state === 'TASK_STATE_INPUT_REQUIRED';
      const charges = quotas.charge('direct.followup', `${ctx.caller.handle}>${record.target}`, ctx.now);
      return {
        messages: [message],
        artifacts: [],
        quotas: charges,
        partsFor: record.target!,
        ...(resumes ? { state: 'TASK_STATE_WORKING' as const } : {}),
      };
    },

    cancel(ctx: KindContext, task: StoredTask, _reason: string | undefined): Change {
      const { record } = task;
      const mayCancel =
        ctx.caller.kind === 'admin' || (ctx.caller.kind === 'agent' && ctx.caller.handle === record.sender);
      if (!mayCancel) {
        throw new HubError('FORBIDDEN', 'Only the sender (or the admin) cancels a direct task', {
          hint: 'The target answers TASK_STATE_REJECTED or TASK_STATE_FAILED with respond',
        });
      }
      return { state: 'TASK_STATE_CANCELED', messages: [], artifacts: [] };
    },

    actions: { respond },

    // Whoever the target is (A2A 1.0 §3.2.2): the hub cannot know an agent will not answer in time.
    blockingWaitMs: () => waitMs,
  };
}

export const directModule: KindModule<DirectSettings> = {
  name: 'direct',
  quotaRules: DIRECT_QUOTA_RULES,
  settings: DIRECT_SETTINGS,
  settingsFrom: directSettingsFrom,
  opensAt: [{ door: 'agent' }],
  cardSkills: (door, handle) =>
    door !== 'agent'
      ? []
      : [
          {
            id: 'direct-task',
            name: 'Direct task',
            description:
              `Send a task to ${handle}'s inbox. Muster stores and routes it, never executes it. SendMessage waits for the answer unless ` +
              'configuration.returnImmediately is true (then it answers at once with the task as it stands, TASK_STATE_SUBMITTED), ' +
              "until the task ends or needs input, up to the hub's blocking wait; the answer may be a Message. " +
              'When the wait runs out first, the answer is the task as it stands, with metadata.muster.wait {"ranOut": true, "seconds": N}, ' +
              `and ${handle} may still answer: follow it with GetTask, ListTasks or SubscribeToTask. ` +
              'Answer TASK_STATE_INPUT_REQUIRED with SendMessage carrying the taskId. Parts must be of the input modes on this card.',
            tags: ['direct', 'inbox'],
            examples: ['Please review the attached proposal and reply with your comments.'],
          },
        ],
  create: ({ quotas, settings }) => directKind(quotas, settings?.blockingWaitMs ?? 30_000),
};
