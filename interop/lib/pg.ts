// A fresh PostgreSQL database per run, made with createdb and dropped with dropdb.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export const PG_SERVER = process.env.MUSTER_INTEROP_PG ?? 'postgres://postgres@127.0.0.1:5432';

export function pgAvailable(): boolean {
  try {
    execFileSync('pg_isready', ['-d', `${PG_SERVER}/postgres`, '-q'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function createDatabase(): { url: string; drop(): void } {
  const name = `muster_interop_${randomBytes(5).toString('hex')}`;
  execFileSync('createdb', ['--maintenance-db', `${PG_SERVER}/postgres`, name], { stdio: 'pipe' });
  return {
    url: `${PG_SERVER}/${name}`,
    drop: () =>
      execFileSync('dropdb', ['--maintenance-db', `${PG_SERVER}/postgres`, '--if-exists', '--force', name], {
        stdio: 'pipe',
      }),
  };
}
