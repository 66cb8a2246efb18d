import type { Delivery } from '../store/store.js';
import type { Logger } from './logger.js';
import type { DeliveryResult, HubMetrics } from './metrics.js';
import { isoTime } from '../wire/iso-time.js';

/** What kind of destination a channel is: a push config's (`push:<id>`), or the target's own endpoint. */
export const channelKind = (channel: string): 'push' | 'forward' => (channel.startsWith('push:') ? 'push' : 'forward');

const RESULT: Record<Delivery['state'], DeliveryResult> = {
  delivered: 'delivered',
  pending: 'retry',
  failed: 'failed',
  canceled: 'failed',
};

/**
 * One line and one count per finished delivery attempt (`delivery` holds its outcome). The URL,
 * headers and body stay out of the line: headers carry the push config's credentials.
 */
export function reportDelivery(logger: Logger, metrics: HubMetrics, delivery: Delivery): void {
  // A follow read the endpoint's task and will read it again (Verdict 'again'): routine, not a failure.
  if (delivery.state === 'pending' && delivery.attempts === 0)
    return void logger.debug({ deliveryId: delivery.id, taskId: delivery.taskId }, 'followed; read again later');
  const result = RESULT[delivery.state];
  const channel = channelKind(delivery.channel);
  metrics.delivery(channel, result);
  const line = {
    deliveryId: delivery.id,
    taskId: delivery.taskId,
    channel,
    attempt: delivery.attempts,
    status: delivery.lastStatus,
    error: result === 'delivered' ? undefined : delivery.lastError,
    nextRetryAt: result === 'retry' ? isoTime(delivery.nextAt) : undefined,
  };
  if (result === 'delivered') logger.info(line, 'delivered');
  else
    logger.warn(line, result === 'retry' ? 'delivery failed; it will be retried' : 'delivery failed; no more retries');
}
