/**
 * A series of statements under one Sync (one-sync.ts), on a real PostgreSQL: it commits whole or
 * not at all, says which statement failed, keeps the connection's prepared statements straight
 * when a failure made PostgreSQL skip a Parse, and binds values as pg would.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../../test/helpers/postgres.js';
import { inOneSync, type Sent } from './one-sync.js';

const insert = (name: string, id: string): Sent => ({
  name,
  text: `INSERT INTO items (id) VALUES ($1::text) RETURNING id AS ${name}`,
  values: [id],
});
const failing: Sent = { name: 'fails', text: 'SELECT 1 / $1::int AS never', values: [0] };

describe.skipIf(!testPostgres)('statements under one Sync on PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  let pool: pg.Pool;
  const ids = async () => (await pool.query<{ id: string }>('SELECT id FROM items ORDER BY id')).rows.map((r) => r.id);
  beforeAll(async () => {
    database = await freshPostgresDatabase('one-sync');
    pool = new pg.Pool({ connectionString: database.url, max: 1, pipeline: true } as pg.PoolConfig);
    await pool.query('CREATE TABLE items (id TEXT PRIMARY KEY, tags TEXT[])');
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });
  const series = async (statements: Sent[]) => {
    const client = await pool.connect();
    try {
      return await inOneSync(client, statements);
    } finally {
      client.release();
    }
  };

  it("commits the statements together and answers each one's rows", async () => {
    const outcome = await series([insert('a', 'one'), insert('b', 'two'), insert('a', 'three')]);
    expect(outcome).toEqual({
      results: [
        { rows: [{ a: 'one' }], rowCount: 1 },
        { rows: [{ b: 'two' }], rowCount: 1 },
        { rows: [{ a: 'three' }], rowCount: 1 },
      ],
    });
    expect(await ids()).toEqual(['one', 'three', 'two']);
  });

  it('rolls back every statement when one fails, and names it', async () => {
    const outcome = await series([insert('c', 'four'), failing, insert('d', 'five')]);
    expect(outcome).toEqual({ error: expect.objectContaining({ code: '22012' }), failed: 1 });
    expect(await ids()).toEqual(['one', 'three', 'two']);
  });

  it('prepares again a statement whose Parse a failure skipped, and not one it had prepared', async () => {
    // 'c' was prepared before the failure, 'd' never was: both must run now on the same connection.
    const outcome = await series([insert('d', 'five'), insert('c', 'four')]);
    expect('results' in outcome).toBe(true);
    expect(await ids()).toEqual(['five', 'four', 'one', 'three', 'two']);
  });

  it('binds strings, numbers, booleans, nulls and arrays as PostgreSQL reads them', async () => {
    const tags = ['plain', 'a "quoted" one', 'back\\slash', 'comma, brace}', null, ''];
    const outcome = await series([
      { name: 'tagged', text: 'INSERT INTO items (id, tags) VALUES ($1::text, $2::text[])', values: ['six', tags] },
      { name: 'typed', text: 'SELECT $1::int8 AS n, $2::bool AS b, $3::text AS t', values: [42, true, null] },
    ]);
    expect('results' in outcome && outcome.results[1]!.rows).toEqual([{ n: '42', b: true, t: null }]);
    expect((await pool.query("SELECT tags FROM items WHERE id = 'six'")).rows[0].tags).toEqual(tags);
  });

  it('binds a Date and an object as pg binds them (a timestamp, JSON)', async () => {
    const outcome = await series([
      { name: 'dated', text: 'SELECT $1::timestamptz AS at, $2::jsonb AS doc', values: [new Date(0), { a: [1] }] },
    ]);
    expect('results' in outcome && outcome.results[0]!.rows).toEqual([{ at: new Date(0), doc: { a: [1] } }]);
  });
});
