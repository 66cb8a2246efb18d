/**
 * Why a database could not be opened or migrated, in the operator's words with what to do: the
 * drivers say `3D000`, `28000`, `ECONNREFUSED` or `SQLITE_NOTADB`. The code stays at the end of
 * each sentence, in parentheses, for a search. What already reads in words (a folder SQLite
 * cannot have, a file another hub holds) is passed on as it is.
 */
import type { DbConfig } from '../config/config.js';
import { serverOptions } from '../config/db.js';
import { StoreUnavailable } from './store.js';

/** A database the hub cannot use, said in words; `cause` is the driver's error. */
export class DatabaseRefused extends Error {
  override name = 'DatabaseRefused';
}

interface Failure {
  code: string | undefined;
  message: string;
}

/** The driver's error under the store's wrapping (StoreUnavailable keeps it as its cause). */
function failureOf(e: unknown): Failure {
  const inner = e instanceof StoreUnavailable && e.cause !== undefined ? e.cause : e;
  const code = (inner as { code?: unknown } | null)?.code;
  return { code: typeof code === 'string' ? code : undefined, message: (inner as Error)?.message ?? String(inner) };
}

/** `e` in words for `db`, as a DatabaseRefused; `e` itself when there is nothing to add to it. */
export function refusedAtOpen(db: DbConfig, e: unknown): unknown {
  const failure = failureOf(e);
  const words = db.kind === 'postgres' ? postgresWords(db.url, failure) : sqliteWords(failure);
  return words ? new DatabaseRefused(words, { cause: e }) : e;
}

/** What a URL names, as PostgreSQL's tools would be told it. */
function partsOf(url: string): { host: string; server: string; database: string; user: string | undefined } {
  try {
    const parsed = new URL(url);
    return {
      host: parsed.hostname || 'localhost',
      server: `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`,
      database: decodeURIComponent(parsed.pathname.slice(1)),
      user: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    };
  } catch {
    return { host: 'the host', server: 'the server', database: 'the database', user: undefined };
  }
}

const quotedName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Codes of a host that does not answer at all. */
const SILENT = new Set(['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const TIMED_OUT = /timeout|timed out/i;

function postgresWords(url: string, { code, message }: Failure): string | undefined {
  const { host, server, database, user } = partsOf(url);
  const options = serverOptions(url);
  const said = (hint: string) => `${message} (${code}); ${hint}`;
  if (code === '3D000')
    return (
      `the database ${quotedName(database)} does not exist on ${server} (3D000); create it with ` +
      `createdb ${options} ${database} (or psql ${options} -d postgres -c 'CREATE DATABASE ${quotedName(database)}'), ` +
      `or name an existing one in the URL`
    );
  if (code === '28000' || code === '28P01')
    return `PostgreSQL at ${server} refused the connection: ${said('check the user and password in the URL, and that pg_hba.conf lets that user in from this host')}`;
  if (code === '42501') {
    const owner = user ? quotedName(user) : '<the URL’s user>';
    return `the user may not create the hub's tables: ${said(`as a superuser, make it the database's owner: ALTER DATABASE ${quotedName(database)} OWNER TO ${owner}`)}`;
  }
  if (code === 'ECONNREFUSED')
    return `nothing accepts connections at ${server} (ECONNREFUSED); is PostgreSQL running there, and listening on that address and port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `the host ${host} cannot be found (${code}); check the host name in the URL`;
  if ((code && SILENT.has(code)) || TIMED_OUT.test(message))
    return `nothing answered at ${server} (${code ?? 'timed out'}); is PostgreSQL running there, and may this machine reach it (a firewall, a security group)?`;
  if (code === '57P03' || code === '53300')
    return `PostgreSQL at ${server} takes no connection now: ${said(code === '53300' ? 'raise its max_connections or stop other clients (each hub node uses up to 22)' : 'start the hub again once it has started')}`;
  if (/does not support SSL/i.test(message))
    return `PostgreSQL at ${server} does not take SSL connections; drop sslmode (or ssl) from the URL, or turn SSL on in the server`;
  if (/Connection terminated unexpectedly/i.test(message))
    return `${server} closed the connection before PostgreSQL answered; is PostgreSQL listening there, and may this machine reach it?`;
  return undefined;
}

/** SQLite's codes of a file it cannot use, each a family (SQLITE_READONLY_DBMOVED and the like): what is wrong, what to do. */
const SQLITE_WORDS: [prefix: string, what: string, todo: string][] = [
  [
    'SQLITE_NOTADB',
    'it is not an SQLite database',
    'name another file, or move this one away to start a new database there',
  ],
  ['SQLITE_CORRUPT', 'the file is damaged', 'restore it from a backup (docs/deploy.md, "Backups")'],
  [
    'SQLITE_READONLY',
    'SQLite may not write it',
    'check the permissions of the file, of its -wal and -shm files and of its folder',
  ],
  ['SQLITE_FULL', 'the disk is full', 'free some space on it'],
  ['SQLITE_CANTOPEN', 'SQLite cannot open it', 'check that its folder exists and may be written'],
  ['SQLITE_IOERR', 'the system failed to read or write it', 'check the disk and the file system it is on'],
  [
    'SQLITE_BUSY',
    'another program holds a lock on it',
    'close that program (an sqlite3 shell, a backup) and start again',
  ],
];

function sqliteWords({ code }: Failure): string | undefined {
  const words = SQLITE_WORDS.find(([prefix]) => code?.startsWith(prefix));
  return words ? `${words[1]} (${code}); ${words[2]}` : undefined;
}

/**
 * Refuses a database a newer Muster migrated past the last migration this one knows: this one
 * would misread what the newer wrote (SQLite artifact rows that name their event, for one).
 */
export function refuseNewerSchema(found: number, migrations: readonly { version: number }[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  if (found > known)
    throw new DatabaseRefused(
      `it was migrated by a newer Muster (schema version ${found}; this one knows up to ${known}): run that version of Muster or a later one, or name another database`,
    );
}
