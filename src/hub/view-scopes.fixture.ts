/** The view's visibility rule over the hub's own kinds, for tests that walk its scopes in a store. */
import type { Caller } from '../identity/caller.js';
import { Quotas } from '../identity/quotas.js';
import { KIND_MODULES } from '../kinds/server.js';
import type { Store, TaskScope } from '../store/store.js';
import type { Door } from './kind.js';
import { Kinds } from './kinds.js';
import { View } from './view.js';
import { VisibilityRule } from './view-scopes.js';

/** The hub's kinds, built as the hub builds them (no kind reads its deps while it is built). */
export function hubKinds(): Kinds {
  return new Kinds(
    { quotas: new Quotas({}, false), settings: {}, store: {} as Store, requireAgent: async () => {} } as never,
    KIND_MODULES,
  );
}

/** The view over the hub's kinds. */
export const hubView = (): View => new View(hubKinds());

/** The rule over the hub's kinds, as the view builds it. */
export function hubRule(): VisibilityRule {
  const kinds = hubKinds();
  return new VisibilityRule(
    [...kinds.byName.values()].map((k) => ({
      name: k.name,
      visibility: k.visibility,
      ...(kinds.baseOf(k.name) !== undefined ? { base: kinds.baseOf(k.name)! } : {}),
    })),
  );
}

/** The scope of what `caller` reads at `door`; it must list something. */
export function scopeAt(caller: Caller, door: Door): TaskScope {
  const scope = hubRule().scope(caller, door);
  if (!scope) throw new Error('the scope lists nothing');
  return scope;
}
