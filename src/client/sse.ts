/** One block of a Server-Sent Events body: its id, event name and data lines as sent. */
export interface SseBlock {
  id?: string;
  event?: string;
  /** The data lines joined by newlines; absent in a block that only moves the id on. */
  data?: string;
}

/**
 * The blocks of an SSE body as they arrive; comment blocks (keep-alives) are skipped, id-only
 * blocks kept. `heard` is called for every chunk, keep-alives included (the connection lives).
 */
export async function* sseBlocks(body: ReadableStream<Uint8Array>, heard?: () => void): AsyncGenerator<SseBlock> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    heard?.();
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = parseBlock(buffer.slice(0, end).split('\n'));
      buffer = buffer.slice(end + 2);
      if (block.id !== undefined || block.data !== undefined) yield block;
    }
  }
}

function parseBlock(lines: readonly string[]): SseBlock {
  const block: SseBlock = {};
  for (const line of lines) {
    if (line.startsWith('id:')) block.id = line.slice(3).trim();
    else if (line.startsWith('event:')) block.event = line.slice(6).trim();
    else if (line.startsWith('data:'))
      block.data = (block.data === undefined ? '' : `${block.data}\n`) + line.slice(5).trim();
  }
  return block;
}
