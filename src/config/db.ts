import { resolve } from 'node:path';
import { ConfigError, type DbConfig } from './config.js';

/** `sqlite:<file>` (relative to the working folder) or a PostgreSQL URL; undefined for anything else. */
export function dbFrom(value: string): DbConfig | undefined {
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return { kind: 'postgres', url: value };
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length)
    return { kind: 'sqlite', file: resolve(value.slice('sqlite:'.length)) };
  return undefined;
}

export function parseDb(value: string): DbConfig {
  const db = dbFrom(value);
  if (!db) throw new ConfigError(`--db must be sqlite:<file> or postgres://…, not '${value}'`);
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
