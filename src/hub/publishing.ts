/**
 * The one screening of what a write makes public. Kinds declare the caller's texts a write
 * publishes (Opening.published, Change.published; a board write's texts); they are screened here,
 * before anything is stored, when what they go on is public: a task stored `public` (its kind's
 * readers are `everyone`), a public board. A task only its participants read, and a private or
 * shared board, are not screened: nobody else reads them. docs/privacy-screening.md lists what
 * each kind declares.
 */
import type { BoardVisibility, Visibility } from '../store/store.js';
import { requirePublished, type Published } from '../wire/screening.js';

/** Refuses (PRIVATE_CONTENT) published texts of a public task or board that look private; nothing is stored then. */
export function screenPublished(visibility: Visibility | BoardVisibility, published: Published | undefined): void {
  if (visibility === 'public' && published !== undefined) requirePublished(published);
}
