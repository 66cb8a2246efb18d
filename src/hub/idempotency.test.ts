import { describe, expect, it } from 'vitest';
import { doorPrint, fingerprintOf } from './idempotency.js';

describe('a message fingerprint', () => {
  const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'What do we know about auth?' }] };

  it('names a kind base as the memory door was named before kind bases, so a retry across the upgrade matches its receipt', () => {
    expect(fingerprintOf([doorPrint({ kind: 'base', name: 'memory' }), message])).toBe(
      fingerprintOf([{ kind: 'memory' }, message]),
    );
  });

  it('tells doors apart', () => {
    const at = (door: Parameters<typeof doorPrint>[0]) => fingerprintOf([doorPrint(door), message]);
    expect(
      new Set([
        at({ kind: 'hub' }),
        at({ kind: 'agent', handle: 'bob' }),
        at({ kind: 'space', name: 'links' }),
        at({ kind: 'base', name: 'memory' }),
      ]).size,
    ).toBe(4);
  });
});
