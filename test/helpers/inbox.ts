/**
 * A raw reader of GET /api/inbox/stream, as an agent holds it: its SSE ids kept as sent (strings:
 * the replay's ids are `S/H`), id-only blocks (where the stream has got to) told apart from events.
 */
export interface InboxBlock {
  id?: string;
  data?: any;
  event?: string;
}

export interface InboxReader {
  status: number;
  body: any;
  /** The next `n` blocks that carry data (id-only marks and keep-alives are noted, not counted). */
  take(n: number, ms?: number): Promise<InboxBlock[]>;
  /** The last id the stream has sent (what an EventSource would resume from). */
  readonly lastId: string | undefined;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openInbox(base: string, token: string | undefined, lastEventId?: string): Promise<InboxReader> {
  const abort = new AbortController();
  const res = await fetch(`${base}api/inbox/stream`, {
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
    },
    signal: abort.signal,
  });
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    return {
      status: res.status,
      body: await res.json(),
      take: async () => [],
      lastId: undefined,
      ended: Promise.resolve(),
      close: () => abort.abort(),
    };
  }
  const reader = res.body!.getReader();
  const queue: InboxBlock[] = [];
  let wake: (() => void) | undefined;
  let lastId: string | undefined;
  let done = false;
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: over } = await reader.read();
        if (over) break;
        buffer += Buffer.from(value).toString('utf8');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const block: InboxBlock = {};
          for (const line of lines) {
            if (line.startsWith('id:')) lastId = block.id = line.slice(3).trim();
            else if (line.startsWith('data:')) block.data = JSON.parse(line.slice(5).trim());
            else if (line.startsWith('event:')) block.event = line.slice(6).trim();
          }
          if (block.data !== undefined) queue.push(block);
          wake?.();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wake?.();
    }
  })();
  const take = async (n: number, ms = 5_000) => {
    const until = Date.now() + ms;
    while (queue.length < n && !done && Date.now() < until) {
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
    return queue.splice(0, n);
  };
  return {
    status: res.status,
    body: undefined,
    take,
    get lastId() {
      return lastId;
    },
    ended,
    close: () => abort.abort(),
  };
}
