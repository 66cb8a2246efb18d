import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { receiptIndex } from './receipts.js';

const receipt = (key: string) => ({ scope: 's', key, fingerprint: 'f', result: { taskId: key } });

describe('receipts', () => {
  it('forgets the keys of a transaction that rolled back, and keeps those of one that committed', () => {
    const db = openDatabase(':memory:');
    const receipts = receiptIndex(db);
    const failing = db.transaction(() => {
      receipts.write(receipt('lost'), 1);
      expect(receipts.exists('s', 'lost')).toBe(true); // a second write in the same transaction is refused
      throw new Error('rolled back');
    });
    expect(() => failing()).toThrow('rolled back');
    receipts.settle(false);
    expect(receipts.exists('s', 'lost')).toBe(false);
    expect(receipts.get('s', 'lost')).toBeUndefined();

    db.transaction(() => receipts.write(receipt('kept'), 1))();
    receipts.settle(true);
    expect(receipts.get('s', 'kept')).toEqual(receipt('kept'));
  });

  it('prunes by age from the table and from the index alike', () => {
    const db = openDatabase(':memory:');
    const receipts = receiptIndex(db);
    receipts.write(receipt('old'), 100);
    receipts.write(receipt('new'), 200);
    receipts.settle(true);
    expect(receipts.prune(150, 10)).toBe(1);
    expect(receipts.exists('s', 'old')).toBe(false);
    expect(receipts.get('s', 'new')).toEqual(receipt('new'));
    expect(db.prepare('SELECT key FROM receipts').pluck().all()).toEqual(['new']);
    expect(receiptIndex(db).exists('s', 'old')).toBe(false); // a rebuilt index agrees
  });

  it('prunes the oldest first and stops at the first receipt written since `before`, even with older ones after it', () => {
    const db = openDatabase(':memory:');
    const receipts = receiptIndex(db);
    receipts.write(receipt('old'), 100);
    receipts.write(receipt('new'), 200);
    receipts.write(receipt('late'), 120); // written after 'new' with an earlier time: a clock step back
    receipts.settle(true);
    expect(receipts.prune(150, 10)).toBe(1);
    expect(['old', 'new', 'late'].map((key) => receipts.exists('s', key))).toEqual([false, true, true]);
    expect(receipts.prune(250, 10)).toBe(2);
    expect(db.prepare('SELECT COUNT(*) FROM receipts').pluck().get()).toBe(0);
  });

  it('prunes in slices of at most `limit`', () => {
    const db = openDatabase(':memory:');
    const receipts = receiptIndex(db);
    for (const key of ['a', 'b', 'c']) receipts.write(receipt(key), 1);
    receipts.settle(true);
    expect(receipts.prune(2, 2)).toBe(2);
    expect(receipts.prune(2, 2)).toBe(1);
    expect(['a', 'b', 'c'].map((key) => receipts.exists('s', key))).toEqual([false, false, false]);
  });
});
