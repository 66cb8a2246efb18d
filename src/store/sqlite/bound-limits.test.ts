import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';

const here = new URL('.', import.meta.url).pathname;
/** A LIMIT whose value is a bare bound parameter (see statementCache in database.ts). */
const BARE_BOUND_LIMIT = /\bLIMIT\s+[?@:$]/i;
const sources = readdirSync(here).filter((f) => f.endsWith('.ts') && !/\.(test|suite|fixture)\.ts$/.test(f));

describe('bound LIMITs in the SQLite store', () => {
  it('are written `LIMIT +?`, never as a bare parameter', () => {
    const bare = sources.flatMap((file) =>
      readFileSync(join(here, file), 'utf8')
        .split('\n')
        .map((line, i) => `${file}:${i + 1}: ${line.trim()}`)
        .filter((line) => BARE_BOUND_LIMIT.test(line)),
    );
    expect(bare).toEqual([]);
  });

  it('limit exactly as a bare parameter would', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4)');
    const read = db.prepare('SELECT n FROM t ORDER BY n DESC LIMIT +?').pluck();
    expect(read.all(2)).toEqual([4, 3]);
    expect(read.all(0)).toEqual([]);
    expect(read.all(-1)).toEqual([4, 3, 2, 1]); // a negative LIMIT is none, as for a bare parameter
    expect(db.prepare('SELECT n FROM t ORDER BY n LIMIT +@lim').pluck().all({ lim: 3 })).toEqual([1, 2, 3]);
    db.close();
  });
});
