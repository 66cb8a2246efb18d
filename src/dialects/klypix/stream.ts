/**
 * message/stream as KLYPIX's clients read it, in A2A 0.3 shapes: the task as it opened
 * (submitted), then, for completed work, one artifact-update carrying the call's one artifact
 * (answers.ts: the board file first), then the one status-update with `final: true`. The memory
 * kind logs an update per artifact; they come in the same burst as the status, so they are held
 * and sent as one just before it.
 */
import type { StreamResponse } from '../../a2a/types.js';
import { EventStream, legacyWire } from '../../doors/a2a/methods.js';
import type { Subscription } from '../../hub/following.js';
import type { TaskStream } from '../../operations/context.js';
import { artifactsOut, klypixTask, statusMessageOut } from './answers.js';

type Logged = Subscription['events'] extends AsyncIterable<infer E> ? E : never;

function eventOut(event: StreamResponse): StreamResponse {
  if ('task' in event) return { task: klypixTask(event.task) };
  if (!('statusUpdate' in event) || !event.statusUpdate.status.message) return event;
  const { status } = event.statusUpdate;
  return { statusUpdate: { ...event.statusUpdate, status: { ...status, message: statusMessageOut(status.message!) } } };
}

/** The held artifact updates as one, under the last one's sequence number. */
function oneArtifactUpdate(held: readonly Logged[]): Logged {
  const updates = held.map((l) => (l.event as Extract<StreamResponse, { artifactUpdate: unknown }>).artifactUpdate);
  const [artifact] = artifactsOut(updates.map((u) => u.artifact));
  return { seq: held.at(-1)!.seq, event: { artifactUpdate: { ...updates[0]!, artifact: artifact! } } };
}

async function* eventsOut(events: AsyncIterable<Logged>): AsyncGenerator<Logged> {
  const held: Logged[] = [];
  for await (const logged of events) {
    if ('artifactUpdate' in logged.event) {
      held.push(logged);
      continue;
    }
    if (held.length) yield oneArtifactUpdate(held.splice(0));
    yield { seq: logged.seq, event: eventOut(logged.event) };
  }
}

export function klypixStream(stream: TaskStream): EventStream {
  const { subscription } = stream;
  const shaped: Subscription = {
    ...subscription,
    snapshot: klypixTask(subscription.snapshot),
    events: eventsOut(subscription.events),
  };
  return new EventStream(shaped, legacyWire, stream.release);
}
