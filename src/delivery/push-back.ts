/**
 * Where an agent's own endpoint pushes what happens to a forwarded task (when its card offers push
 * notifications and no stream): a URL at the hub per forwarded task, and a token for it that any
 * node can check and nobody else can make — the hub's own signature over the task's id. Nothing
 * is stored for it; a token outlives a key rotation by the keys' grace period.
 */
import { verifyDetached, type Signer } from './signing.js';

export interface PushBack {
  /** The URL the endpoint posts the task's changes to. */
  url(taskId: string): string;
  token(taskId: string): Promise<string>;
  /** Whether `token` is the hub's, for this task. */
  check(taskId: string, token: string): Promise<boolean>;
}

const signed = (taskId: string) => `muster forwarded task push ${taskId}`;

export function pushBack(signer: Pick<Signer, 'signDetached' | 'currentJwks'>, hubUrl: () => string): PushBack {
  return {
    // The REST door's route (doors/rest/forwarded.ts).
    url: (taskId) => `${hubUrl()}api/forwarded/${encodeURIComponent(taskId)}/push`,
    token: (taskId) => signer.signDetached(signed(taskId)),
    check: async (taskId, token) =>
      verifyDetached(token, signed(taskId), await signer.currentJwks()).then(
        () => true,
        () => false,
      ),
  };
}
