/**
 * The /mcp sessions this node holds (Streamable HTTP, stateful): each an McpServer and its
 * transport, bound to the token that opened it. Sessions live in this process only: a request
 * naming a session another node (or this one before a restart) opened gets the transport's 404,
 * and the client initializes again. Bounded in number, and closed after an idle while.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { HubError } from '../../errors/hub-error.js';

export interface McpSession {
  /** Named by the transport as it answers `initialize`; '' until then. */
  id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Who opened it: its token's hash, or '' for an anonymous session. */
  readonly owner: string;
  /** The latest request's Host and address, which the in-process calls carry. */
  host: string;
  remoteAddress: string;
  lastUsed: number;
  /** Open GET streams: a session holding one is listening, not idle. */
  streams: number;
  /** POSTs still being answered (a tool call may be waiting on a task). */
  calls: number;
}

/** The longest the hub's stop waits for calls still being answered. */
const STOP_GRACE_MS = 2_000;

export interface SessionLimits {
  maxSessions: number;
  idleMs: number;
}

export class McpSessions {
  private readonly open = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: SessionLimits) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1_000, Math.min(60_000, limits.idleMs / 4)));
    this.sweeper.unref();
  }

  get(id: string): McpSession | undefined {
    const session = this.open.get(id);
    if (session) session.lastUsed = Date.now();
    return session;
  }

  /**
   * A new session (not yet initialized: the transport names it as it answers `initialize`);
   * `server` is built for it by the caller, and connected here. Refused past the bound.
   */
  async start(
    owner: string,
    caller: { host: string; remoteAddress: string },
    build: (session: () => McpSession) => McpServer,
  ): Promise<McpSession> {
    this.closeIdle();
    if (this.open.size >= this.limits.maxSessions) {
      throw new HubError('RATE_LIMITED', `This node holds its most MCP sessions (${this.limits.maxSessions})`, {
        hint: 'End sessions you no longer use (DELETE /mcp with their Mcp-Session-Id), or retry once idle ones expire',
        meta: { retryAfterSeconds: '30' },
      });
    }
    let session: McpSession | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        session!.id = id;
        this.open.set(id, session!);
      },
      onsessionclosed: (id) => void this.close(id),
    });
    const server = build(() => session!);
    session = { id: '', transport, server, owner, ...caller, lastUsed: Date.now(), streams: 0, calls: 0 };
    await server.connect(transport);
    return session;
  }

  /** Ends one session: its server, its transport (open streams end) and anything it follows. */
  async close(id: string): Promise<void> {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    await session.server.close().catch(() => undefined);
  }

  /**
   * Ends every session (the hub is stopping). Calls still being answered get a moment first: the
   * hub's stop ends their waits at once, and their answers should reach the client before the
   * session goes.
   */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const until = Date.now() + STOP_GRACE_MS;
    while ([...this.open.values()].some((s) => s.calls > 0) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }

  private closeIdle(): void {
    const before = Date.now() - this.limits.idleMs;
    for (const [id, session] of this.open) if (session.streams === 0 && session.lastUsed < before) void this.close(id);
  }
}
