/**
 * Statements sent as one series of extended-protocol messages closed by a single Sync: PostgreSQL
 * runs them in one implicit transaction that commits at the Sync, or, at the first that fails,
 * skips the rest and rolls back the lot. Against BEGIN, each statement with its own Sync, and
 * COMMIT, the backend answers the whole series in one write instead of one per statement (each
 * Sync flushes its socket), and the hub reads and parses one reply.
 *
 * The driver has no call for this, so the series is a query of its own (a subclass of pg's Query,
 * the kind a pipelined connection accepts), writing the messages itself: Parse for a statement
 * not yet prepared on the connection, then Bind, Describe and Execute for each, then Sync.
 */
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';

export interface Sent {
  /** Its prepared statement's name on every connection; undefined: parsed anew, unnamed. */
  name: string | undefined;
  text: string;
  values: readonly unknown[];
}

export interface Rows {
  rows: Record<string, unknown>[];
  rowCount: number;
}

/** The statements' rows, in order; or the failure and which statement it came from. */
export type SyncOutcome = { results: Rows[] } | { error: unknown; failed: number };

interface Wired {
  name: string;
  text: string;
  values: (string | Buffer | null)[];
}

/** What of pg's connection the series uses (the driver's types leave most of it out). */
interface Wire {
  stream: { cork(): void; uncork(): void };
  /** Statements prepared on this connection, and those whose Parse is on its way, by name. */
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(query: { name: string; text: string; types: never[] }): void;
  bind(config: { statement: string; values: (string | Buffer | null)[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  sync(): void;
  on(event: 'parseComplete', listener: () => void): void;
  off(event: 'parseComplete', listener: () => void): void;
}

/** pg's result as its Query builds it: one per statement (an array once there are several). */
interface Built {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/**
 * The series on the wire. pg hands it every reply (rows, CommandComplete, the error, the closing
 * ReadyForQuery) and builds one result per statement; it counts the statements completed, so a
 * failure names its statement, and keeps the connection's record of prepared statements true.
 */
class SeriesQuery extends pg.Query {
  private completed = 0;
  /** Statements whose Parse this series sent and PostgreSQL has not confirmed yet, in order. */
  private readonly parsing: Wired[] = [];
  private wire: Wire | undefined;
  private readonly parsed = () => {
    const s = this.parsing.shift();
    if (!s?.name || !this.wire) return;
    this.wire.parsedStatements[s.name] = s.text;
    delete this.wire.submittedNamedStatements[s.name];
  };

  constructor(
    private readonly statements: Wired[],
    done: (outcome: SyncOutcome) => void,
  ) {
    super({ text: '' }, (error: Error | undefined, built: unknown) => {
      this.stopListening();
      if (error) return done({ error, failed: this.completed });
      const all = (Array.isArray(built) ? built : [built]) as Built[];
      done({ results: all.map((r) => ({ rows: r.rows, rowCount: r.rowCount ?? 0 })) });
    });
  }

  override submit = (connection: pg.Connection): Error | null => {
    const wire = connection as unknown as Wire;
    this.wire = wire;
    wire.on('parseComplete', this.parsed);
    wire.stream.cork(); // every message leaves in one write
    try {
      for (const s of this.statements) {
        if (!s.name || (wire.parsedStatements[s.name] ?? wire.submittedNamedStatements[s.name]) === undefined) {
          wire.parse({ name: s.name, text: s.text, types: [] });
          if (s.name) wire.submittedNamedStatements[s.name] = s.text;
          this.parsing.push(s);
        }
        wire.bind({ statement: s.name, values: s.values });
        wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '' });
      }
      wire.sync();
    } finally {
      wire.stream.uncork();
    }
    return null;
  };

  /** pg's own handling (the next statement's result starts here), counted. */
  handleCommandComplete(...args: unknown[]): void {
    this.completed++;
    (pg.Query.prototype as unknown as { handleCommandComplete(...a: unknown[]): void }).handleCommandComplete.apply(
      this,
      args,
    );
  }

  /** After a failure PostgreSQL skipped the Parses behind it: those statements are not prepared. */
  private stopListening(): void {
    const wire = this.wire;
    if (!wire) return;
    wire.off('parseComplete', this.parsed);
    for (const s of this.parsing.splice(0)) if (s.name) delete wire.submittedNamedStatements[s.name];
  }
}

/**
 * Runs `statements` on `client` (in pipeline mode, nothing else in flight on it) as one implicit
 * transaction, answered once it committed or rolled back (or the connection failed). Values are
 * bound as pg's own queries bind them.
 */
export function inOneSync(client: pg.PoolClient, statements: readonly Sent[]): Promise<SyncOutcome> {
  const wired = statements.map((s) => ({
    name: s.name ?? '',
    text: s.text,
    values: s.values.map(pgUtils.prepareValue),
  }));
  return new Promise((resolve) => void client.query(new SeriesQuery(wired, resolve)));
}
