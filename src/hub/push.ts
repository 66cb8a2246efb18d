/**
 * Push-notification configs (the A2A push-config methods) and the outbox rows a task write
 * produces for them. A config belongs to the caller who set it, on a task they may see; each
 * event is rendered for that owner by the view before it is queued, so push shows nobody more
 * than a stream would.
 */
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { SET_THROUGH_03, taskOut } from '../a2a/legacy.js';
import type { StreamResponse } from '../a2a/types.js';
import { whenMissing } from '../a2a/zod-issues.js';
import { HubError, invalidParams } from '../errors/hub-error.js';
import { callerName, requireActor, type Caller } from '../identity/caller.js';
import {
  pushChannel,
  type DeliveryDraft,
  type OutboxStore,
  type PushConfig,
  type StoredTask,
  type TaskRecord,
} from '../store/store.js';
import { tasksAfterEach } from './push-03.js';
import type { View } from './view.js';

export const configSchema = z
  .object({
    taskId: z.string().min(1),
    id: z.string().min(1).max(200).optional(),
    url: z.string(whenMissing('the https URL to POST events to')),
    token: z.string().max(1000).optional(),
    authentication: z
      .object({ scheme: z.string().min(1).max(100), credentials: z.string().max(4000).optional() })
      .loose()
      .optional(),
  })
  .loose();

export type ConfigInput = z.output<typeof configSchema>;

/** Checks a destination URL (scheme, resolved addresses); throws with a reason a person can act on. */
export type TargetCheck = (url: string) => Promise<void>;

/** Push configs one caller may hold on one task: each event is sent once per config. */
const MAX_CONFIGS = 10;

const REFUSALS: Record<string, string> = {
  'invalid-url': 'is not an absolute URL',
  scheme: 'must be an https URL',
  credentials: 'must not carry a user name or password',
  'private-address': 'does not resolve to a public address',
};

const ownerCaller = (owner: string): Caller =>
  owner === '(admin)' ? { kind: 'admin' } : { kind: 'agent', handle: owner };

const taken = (id: string) =>
  new HubError('CONFLICT', `A push config '${id}' exists on this task`, { hint: 'Choose another id, or omit it' });
const full = () =>
  new HubError('RATE_LIMITED', `At most ${MAX_CONFIGS} push configs per task for one caller`, {
    hint: 'Delete one first, or reuse an id',
  });

export class PushConfigs {
  constructor(
    private readonly store: OutboxStore,
    private readonly view: View,
    private readonly checkTarget: TargetCheck,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Refuses a URL the hub may not POST to, naming the field it came in (but not what its host resolves to). */
  async check(url: string, field = 'url'): Promise<void> {
    try {
      await this.checkTarget(url);
    } catch (e) {
      const reason = (e as { reason?: string }).reason ?? 'invalid-url';
      throw invalidParams(
        field,
        REFUSALS[reason] ?? 'is not a URL this hub may call',
        'Send a public https URL that this hub may POST to',
      );
    }
  }

  /** Refuses, before anything is written (a SendMessage that also sets a config), a config the caller could not set on this task. */
  async assertSettable(caller: Caller, taskId: string, id: string | undefined): Promise<void> {
    const configs = await this.store.listPushConfigs(taskId);
    const mine = configs.filter((c) => this.view.ownsConfig(caller, c));
    if (id !== undefined && configs.some((c) => c.id === id && !this.view.ownsConfig(caller, c))) throw taken(id);
    if (mine.length >= MAX_CONFIGS && !mine.some((c) => c.id === id)) throw full();
  }

  async create(caller: Caller, taskId: string, input: ConfigInput, checked = false): Promise<PushConfig> {
    requireActor(caller, 'A push config', 'set push configs');
    if (!checked) await this.check(input.url);
    const config: PushConfig = {
      taskId,
      id: input.id ?? uuidv7(),
      owner: callerName(caller),
      url: input.url,
      createdAt: this.clock(),
      ...(input['protocol'] === SET_THROUGH_03 ? { protocol: '0.3' as const } : {}),
      ...(input.token !== undefined ? { token: input.token } : {}),
      ...(input.authentication
        ? {
            authentication: {
              scheme: input.authentication.scheme,
              ...(input.authentication.credentials !== undefined
                ? { credentials: input.authentication.credentials }
                : {}),
            },
          }
        : {}),
    };
    // The store checks the id's owner and the cap where it writes, so puts racing through other processes cannot pass them.
    const outcome = await this.store.putPushConfig(config, MAX_CONFIGS);
    if (outcome === 'taken') throw taken(config.id);
    if (outcome === 'full') throw full();
    return config;
  }

  /** The caller's own configs on a task. */
  async list(caller: Caller, taskId: string): Promise<PushConfig[]> {
    return (await this.store.listPushConfigs(taskId)).filter((c) => this.view.ownsConfig(caller, c));
  }

  async get(caller: Caller, taskId: string, id: string): Promise<PushConfig> {
    const config = (await this.list(caller, taskId)).find((c) => c.id === id);
    if (!config)
      throw new HubError('NOT_FOUND', `No push config '${id}' of yours on task ${taskId}`, {
        hint: 'List them with ListTaskPushNotificationConfigs',
      });
    return config;
  }

  /** Deleting is idempotent: a config that is not there is already deleted. */
  async delete(caller: Caller, taskId: string, id: string): Promise<void> {
    if ((await this.list(caller, taskId)).some((c) => c.id === id)) await this.store.deletePushConfig(taskId, id);
  }

  /**
   * The outbox rows for a write's events, one per (config, event the config's owner may see): the
   * event itself for a 1.0 config; for a 0.3 config, the task after the event in 0.3 shape, as 0.3
   * receivers take it.
   */
  async drafts(prior: StoredTask, record: TaskRecord, events: readonly StreamResponse[]): Promise<DeliveryDraft[]> {
    const configs = await this.store.listPushConfigs(record.id);
    if (configs.length === 0) return [];
    const firstSeq = record.lastSeq - events.length + 1;
    // `prior` is the version the write follows (read whole for it): its events applied in turn give the task after each.
    const tasks03 = configs.some((c) => c.protocol === '0.3') ? tasksAfterEach(prior, record, events) : [];
    const drafts: DeliveryDraft[] = [];
    for (const config of configs) {
      events.forEach((event, i) => {
        const shown = this.view.streamEvent(ownerCaller(config.owner), record, event);
        if (!shown) return;
        const [type, body] =
          config.protocol === '0.3'
            ? ['application/json', taskOut(this.view.render(tasks03[i]!, { includeArtifacts: true }))]
            : ['application/a2a+json', shown];
        drafts.push({
          id: uuidv7(),
          taskId: record.id,
          channel: pushChannel(config.id),
          seq: firstSeq + i,
          url: config.url,
          headers: { 'content-type': type },
          body: JSON.stringify(body),
        });
      });
    }
    return drafts;
  }

  /**
   * The credentials a push delivery carries, read from its config when it is sent: they are
   * stored once, with the config, and a changed config's new credentials apply to its retries.
   */
  async credentials(delivery: Pick<DeliveryDraft, 'taskId' | 'channel'>): Promise<Record<string, string>> {
    const config = (await this.store.listPushConfigs(delivery.taskId)).find(
      (c) => pushChannel(c.id) === delivery.channel,
    );
    return config ? credentialHeaders(config) : {};
  }
}

function credentialHeaders(config: PushConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.authentication)
    headers['authorization'] = `${config.authentication.scheme} ${config.authentication.credentials ?? ''}`.trim();
  if (config.token !== undefined) headers['x-a2a-notification-token'] = config.token;
  return headers;
}

/** A config as the A2A methods show it: never its credentials. */
export function configOut(config: PushConfig) {
  return {
    taskId: config.taskId,
    id: config.id,
    url: config.url,
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(config.authentication ? { authentication: { scheme: config.authentication.scheme } } : {}),
  };
}
