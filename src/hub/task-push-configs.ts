/**
 * The A2A push-config methods (set, get, list, delete) and a task's outbox, each on a task the
 * caller may see; what a config is and which deliveries it makes are push.ts's.
 */
import { camelKeys, parseWith } from '../a2a/validate.js';
import type { Delivery, PushConfig, Store, StoredTask } from '../store/store.js';
import type { Actor } from './actor.js';
import { configSchema, type PushConfigs } from './push.js';
import type { View } from './view.js';

/** Enough of a task to know who may see it. */
const SUMMARY = { includeArtifacts: false, historyLength: 0 } as const;

export interface TaskPushConfigsDeps {
  store: Pick<Store, 'getTask' | 'listDeliveries' | 'listPushConfigs'>;
  view: View;
  push: PushConfigs;
}

export class TaskPushConfigs {
  constructor(private readonly deps: TaskPushConfigsDeps) {}

  async setPushConfig(actor: Actor, raw: unknown): Promise<PushConfig> {
    const input = parseWith(configSchema, camelKeys(raw));
    await this.seen(actor, input.taskId);
    return this.deps.push.create(actor.caller, input.taskId, input);
  }

  async pushConfigs(actor: Actor, taskId: string): Promise<PushConfig[]> {
    await this.seen(actor, taskId);
    return this.deps.push.list(actor.caller, taskId);
  }

  async pushConfig(actor: Actor, taskId: string, id: string): Promise<PushConfig> {
    await this.seen(actor, taskId);
    return this.deps.push.get(actor.caller, taskId, id);
  }

  async deletePushConfig(actor: Actor, taskId: string, id: string): Promise<void> {
    await this.seen(actor, taskId);
    await this.deps.push.delete(actor.caller, taskId, id);
  }

  /**
   * The outbox of a task as far as it is the caller's: deliveries to their own push configs, and
   * to the target's endpoint for the target itself (the admin sees all).
   */
  async deliveries(actor: Actor, taskId: string): Promise<Delivery[]> {
    const { record } = await this.seen(actor, taskId);
    const { store, view } = this.deps;
    const [deliveries, configs] = await Promise.all([store.listDeliveries(taskId), store.listPushConfigs(taskId)]);
    return view.deliveries(actor.caller, record, deliveries, configs);
  }

  /** The task, if the caller may see it (else "not found", View.visible). */
  private async seen(actor: Actor, taskId: string): Promise<StoredTask> {
    return this.deps.view.visible(actor.caller, actor.door, await this.deps.store.getTask(taskId, SUMMARY), taskId);
  }
}
