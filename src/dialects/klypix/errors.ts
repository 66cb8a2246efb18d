/**
 * KLYPIX's error table. KLYPIX speaks A2A 0.3 JSON-RPC, so each hub error keeps the A2A door's
 * code and HTTP status (jsonrpc-errors.ts): the table is that one. What differs is the words: a
 * refusal names each field where KLYPIX's client sent it (`canvas`, a connection's
 * `relationship`) and says KLYPIX's skill ids, so its hint says what to send in its own terms.
 */
import { renamedFields } from '../../a2a/validate.js';
import { errorAnswer, type Answer, type JsonRpcId } from '../../doors/a2a/jsonrpc.js';
import { HubError, isHubError } from '../../errors/hub-error.js';
import { fieldOut, wordsOut } from './args.js';

/** A hub error in KLYPIX's words. */
export function inKlypixWords(error: unknown): unknown {
  const renamed = renamedFields(error, fieldOut);
  if (!isHubError(renamed)) return renamed;
  // A message written from the fields is written again from them (and again under `params`).
  const fromFields = renamed.message === new HubError(renamed.code, undefined, { fields: renamed.fields }).message;
  return new HubError(renamed.code, fromFields ? undefined : wordsOut(renamed.message), {
    ...(renamed.hint ? { hint: wordsOut(renamed.hint) } : {}),
    fields: renamed.fields.map((f) => ({ field: f.field, description: wordsOut(f.description) })),
    meta: renamed.meta,
  });
}

export const klypixErrorAnswer = (id: JsonRpcId, error: unknown): Answer => errorAnswer(id, inKlypixWords(error));
