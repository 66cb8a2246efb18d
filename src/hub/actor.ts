/** Who asks, and through which door: every task read and write starts from one (the doors make it). */
import type { Caller } from '../identity/caller.js';
import type { Door } from './kind.js';

export interface Actor {
  caller: Caller;
  door: Door;
  /** The media types a SendMessage's caller accepts in its answer (configuration.acceptedOutputModes). */
  acceptedOutputModes?: readonly string[];
  /** The hub's base URL as the caller reaches it, for links in answers. */
  hubUrl?: string;
}
