import { HubError } from '../../errors/hub-error.js';

/** Counts each caller's open streams on this process. */
export class StreamSlots {
  private readonly open = new Map<string, number>();
  constructor(private readonly limit: number) {}

  take(who: string): () => void {
    const held = this.open.get(who) ?? 0;
    if (held >= this.limit) {
      throw new HubError('RATE_LIMITED', `At most ${this.limit} open streams per caller`, { hint: 'Close a stream first, or poll with ListTasks' });
    }
    this.open.set(who, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(who) ?? 1) - 1;
      if (left > 0) this.open.set(who, left);
      else this.open.delete(who);
    };
  }
}

const shared = new WeakMap<object, StreamSlots>();

/** The one StreamSlots of a hub in this process, whichever door opens the stream (task streams and the live inbox count together). */
export function streamSlotsOf(hub: object, limit: number): StreamSlots {
  let slots = shared.get(hub);
  if (!slots) shared.set(hub, (slots = new StreamSlots(limit)));
  return slots;
}
