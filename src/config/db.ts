import { resolve } from 'node:path';
import { ConfigError, type DbConfig } from './config.js';

const POSTGRES = /^postgres(?:ql)?:\/\//;
/** The database a PostgreSQL URL names: its path after the host, decoded; '' for none (`…:5432` or `…:5432/`). */
const databaseIn = (url: string): string => {
  const name = /^postgres(?:ql)?:\/\/[^/?#]*\/?([^?#]*)/.exec(url)?.[1] ?? '';
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
};

/**
 * `sqlite:<file>` (relative to the working folder) or a PostgreSQL URL that names its database;
 * undefined for anything else (dbRefusal says why).
 */
export function dbFrom(value: string): DbConfig | undefined {
  if (POSTGRES.test(value)) return databaseIn(value) ? { kind: 'postgres', url: value } : undefined;
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length)
    return { kind: 'sqlite', file: resolve(value.slice('sqlite:'.length)) };
  return undefined;
}

/**
 * Why dbFrom refused `value`, said after the setting's name, when there is more to say than what
 * it accepts: a PostgreSQL URL without a database would connect to the server's default one (the
 * user's name) and put the hub's tables there.
 */
export function dbRefusal(value: string): string | undefined {
  if (!POSTGRES.test(value) || databaseIn(value)) return undefined;
  const [server, query] = describeDb({ kind: 'postgres', url: value }).split(/\?(.*)/s);
  const named = `${server!.replace(/\/+$/, '')}/muster${query ? `?${query}` : ''}`;
  return (
    `names no database: ${server}; name one after the host, as in ${named} ` +
    `(create it first if it does not exist: createdb ${serverOptions(value)} muster)`
  );
}

/** The psql and createdb options that reach the server of `url`: `-h host -p port [-U user]`. */
export function serverOptions(url: string): string {
  try {
    const { hostname, port, username } = new URL(url);
    return `-h ${hostname || 'localhost'} -p ${port || '5432'}${username ? ` -U ${decodeURIComponent(username)}` : ''}`;
  } catch {
    return '-h HOST -p PORT -U USER';
  }
}

export function parseDb(value: string): DbConfig {
  const db = dbFrom(value);
  if (!db) throw new ConfigError(`--db ${dbRefusal(value) ?? `must be sqlite:<file> or postgres://…, not '${value}'`}`);
  return db;
}

/** A database fit for a log line or `muster config`: without its password. */
export function describeDb(db: DbConfig): string {
  if (db.kind === 'sqlite') return db.file;
  try {
    const url = new URL(db.url);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return 'postgres://…';
  }
}
