/**
 * Free text at the memory base, routed by what it asks (a convenience; a data part naming the
 * skill is the reliable contract). The phrasings, in the order they are tried:
 *   "What's in the X board?" / "What is on the X board?" / "Read the X board"   → board.read X
 *   (also "… the board X", and "canvas" for "board"; "Summarize" and "Show" read too)
 *   "Remember that …" / "Remember: …"                                            → board.remember, to the caller's own board
 *   "Make a board: A; B; C" / "Make a board called T: A; B; C"                   → board.create, one card per item
 *   ("Make a board" without items asks for them; "canvas" for "board" here too)
 *   "List my boards" / "What boards do I have?" / "Which boards can I read?"     → board.list
 *   any other question ("What do we know about X?", "… ?")                        → board.recall
 * Anything else routes nowhere (the call asks for a data part).
 */
import type { JsonObject } from '../../a2a/types.js';

export interface RoutedCall {
  skill: string;
  args: JsonObject;
  /** The call writes to the caller's own board (whose id only the caller's handle gives). */
  toOwnBoard?: true;
}

const ASK_READ = String.raw`(?:what(?:'s| is)|whats)\s+(?:in|on)`;
const TELL_READ = String.raw`(?:read|show(?: me)?|open|summari[sz]e)`;
const READ = [
  new RegExp(String.raw`^${ASK_READ}\s+(?:the\s+)?(?:board|canvas)\s+(.+?)\s*\??$`, 'i'),
  new RegExp(String.raw`^${ASK_READ}\s+(?:the\s+)?(.+?)\s+(?:board|canvas)\s*\??$`, 'i'),
  new RegExp(String.raw`^${TELL_READ}\s+(?:the\s+)?(?:board|canvas)\s+(.+?)\s*[.!]?$`, 'i'),
  new RegExp(String.raw`^${TELL_READ}\s+(?:the\s+)?(.+?)\s+(?:board|canvas)\s*[.!]?$`, 'i'),
];
const REMEMBER = /^remember(?:\s+that\b|\s*:)\s*(.+?)\s*$/is;
const MAKE =
  /^(?:make|create|start)\s+(?:a\s+)?(?:new\s+)?(?:board|canvas)(?:\s+(?:called|named|titled)\s+(.+?))?\s*(?::\s*(.*))?[.!]?$/is;
const LIST =
  /^(?:list (?:my |all )?(?:boards|canvases)|(?:what|which) (?:boards|canvases)\b.*|show (?:me )?(?:my )?(?:boards|canvases))\s*[?.!]?$/i;
const ABOUT = /^(?:what do (?:we|you|i) know about|what about|tell me about|anything (?:on|about))\s+(.+?)\s*\??$/i;

/** The items of a brief: one per line or per `;`, trimmed, empty ones dropped. */
export const briefItems = (brief: string) =>
  brief
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** An untitled brief's title: its items. */
export const briefTitle = (items: readonly string[]) => items.join('; ').slice(0, 80);

export function routeText(text: string): RoutedCall | undefined {
  const said = text.trim();
  for (const pattern of READ) {
    const m = pattern.exec(said);
    if (m) return { skill: 'board.read', args: { board: m[1]!.replace(/^["']|["']$/g, '') } };
  }
  const remember = REMEMBER.exec(said);
  if (remember)
    return { skill: 'board.remember', args: { cards: [remember[1]!.replace(/\.$/, '')] }, toOwnBoard: true };
  const make = MAKE.exec(said);
  if (make) {
    // Without items (or a title) the call asks for them, showing the data part to send.
    const cards = briefItems(make[2] ?? '');
    const title = make[1]?.trim() || briefTitle(cards);
    return { skill: 'board.create', args: { ...(title ? { title } : {}), ...(cards.length ? { cards } : {}) } };
  }
  if (LIST.test(said)) return { skill: 'board.list', args: {} };
  const about = ABOUT.exec(said);
  if (about) return { skill: 'board.recall', args: { query: about[1]! } };
  if (said.endsWith('?')) return { skill: 'board.recall', args: { query: said } };
  return undefined;
}
