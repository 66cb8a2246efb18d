/**
 * Every kind is a wing of the same shape, named in both lists: its module in server.ts, its
 * client half in client.ts. A folder added without its entries (or an entry without its folder)
 * fails here, not in a user's hands.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND_CLIENTS } from './client.js';
import { KIND_MODULES } from './server.js';

const KINDS_DIR = new URL('.', import.meta.url).pathname;
const wings = readdirSync(KINDS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe("the kinds' wings", () => {
  it('are each named once in the server list and once in the client list', () => {
    expect(KIND_MODULES.map((m) => m.name).sort()).toEqual(wings);
    expect(KIND_CLIENTS.map((c) => c.name).sort()).toEqual(wings);
  });

  it('each have the same parts: the module named as the wing, and a client half', () => {
    for (const wing of wings) {
      expect(existsSync(join(KINDS_DIR, wing, `${wing}.ts`)), `${wing}/${wing}.ts`).toBe(true);
      expect(existsSync(join(KINDS_DIR, wing, 'client', 'index.ts')), `${wing}/client/index.ts`).toBe(true);
    }
  });

  it("are listed in the same order on both sides (demo steps and commands follow the server's order)", () => {
    expect(KIND_CLIENTS.map((c) => c.name)).toEqual(KIND_MODULES.map((m) => m.name));
  });
});
