/** A kind's base of its own takes a first path segment of the hub's URLs: never one the hub serves itself. */
import { describe, expect, it } from 'vitest';
import { Quotas } from '../identity/quotas.js';
import type { Store } from '../store/store.js';
import { Kinds } from '../hub/kinds.js';
import { memoryModule } from './memory/memory.js';

const deps = { quotas: new Quotas({}, false), settings: {}, store: {} as Store, requireAgent: async () => {} };

describe("kinds' own bases", () => {
  it('the memory base is taken as it is', () => {
    expect(new Kinds(deps, [memoryModule]).bases.map((b) => b.name)).toEqual([memoryModule.base!.name]);
  });

  it.each(['feed', 'api', 'mcp', 'agents', 'spaces', '.well-known'])(
    'a base named %s is refused at start, naming the path',
    (name) => {
      const clash = { ...memoryModule, base: { ...memoryModule.base!, name } };
      expect(() => new Kinds(deps, [clash])).toThrow(`/${name}/ is the hub's own`);
    },
  );
});
