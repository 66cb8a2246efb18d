/** A JSON-RPC call POSTed to a base, as a streaming method is: the raw response, to read as SSE. */
export function postRpc(
  url: string,
  method: string,
  params: unknown,
  options: { token?: string; lastEventId?: number | string; rpcId?: number | string; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.lastEventId !== undefined ? { 'last-event-id': String(options.lastEventId) } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: options.rpcId ?? 9, method, params }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** One Server-Sent Event as a test reads it: its id, its parsed data, or (for a comment block) the comment. */
export interface SseBlock {
  id?: number;
  data?: any;
  /** Set for a block made only of comment lines (a keep-alive). */
  comment?: string;
}

/** The blocks of an SSE body, in order, as they arrive. */
export async function* sseBlocks(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<SseBlock> {
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += Buffer.from(value).toString('utf8');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      if (lines.every((l) => l.startsWith(':'))) {
        yield { comment: block };
        continue;
      }
      const id = lines.find((l) => l.startsWith('id:'));
      const data = lines.find((l) => l.startsWith('data:'));
      yield {
        ...(id ? { id: Number(id.slice(3).trim()) } : {}),
        ...(data ? { data: JSON.parse(data.slice(5).trim()) } : {}),
      };
    }
  }
}
