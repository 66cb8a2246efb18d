/**
 * The hub speaks in wire terms (field paths, REST routes); a CLI user typed flags and commands.
 * These two small tables put the hub's words back in the CLI's, for the one error printer.
 */

/** Each wire field the CLI sets from a flag or argument, and that flag. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  'params.message.contextId': '--context',
  'params.message.taskId': '--task',
  contextId: '--context',
  expectedState: '--expected-state',
  state: '<state>',
  limit: '--limit',
  cursor: '--cursor',
  artifacts: '--artifact-text',
};

/** REST routes the CLI has a command for, and that command. */
const COMMAND_OF_ROUTE: readonly [RegExp, string][] = [
  [/POST \/api\/agents\/[^/\s]+\/endpoint\/challenge/g, 'muster endpoint challenge'],
  [/(?:POST \/api\/agents\/[^/\s]+)?\/endpoint\/verify/g, 'muster endpoint verify'],
  [/POST \/api\/tasks\/([^/\s{}]+)\/respond/g, 'muster respond $1'],
  [/POST \/api\/tasks\/([^/\s{}]+)\/close/g, 'muster call close $1'],
  [/GET \/api\/tasks\/([^/\s{}.,;]+)/g, 'muster get $1'],
  [/GET \/api\/agents\/[^/\s{}]+\/tokens/g, 'muster token list'],
  [/GET \/api\/inbox/g, 'muster inbox'],
  [/GET \/api\/sent/g, 'muster sent'],
  [/GET \/api\/me\b/g, 'muster whoami'],
  [/POST \/api\/keys\/rotate/g, 'muster keys rotate'],
  [/PATCH \/api\/agents\/([^/\s{}.,;]+|\{handle\})/g, 'muster agents update'],
  [/GET \/api\/agents(?![/\w])/g, 'muster agents list'],
  [/POST \/api\/agents(?![/\w])/g, 'muster register'],
  [/GET \/api\/boards\/([^/\s{}.,;]+)/g, 'muster board read $1'],
  [/GET \/api\/boards(?![/\w])/g, 'muster board list'],
];

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A violation's field as the CLI user knows it: the flag for the field or for what it is inside of
 * (`artifacts[0].parts` is --artifact-text), else the field as the hub named it.
 */
export function flagOfField(field: string): string {
  const owner = Object.keys(FLAG_OF_FIELD).find(
    (wire) => field === wire || field.startsWith(`${wire}.`) || field.startsWith(`${wire}[`),
  );
  return owner !== undefined ? FLAG_OF_FIELD[owner]! : field;
}

/**
 * A message or hint in the CLI's words: REST routes become commands, and field paths become flags.
 * Only paths no prose word could be (dotted, or camelCase) are rewritten in running text; plain
 * words such as "state" or "limit" are only rewritten as a violation's field.
 */
export function inCliWords(text: string): string {
  let out = text;
  for (const [route, command] of COMMAND_OF_ROUTE) out = out.replace(route, command);
  for (const [wire, flag] of Object.entries(FLAG_OF_FIELD)) {
    if (/[.A-Z]/.test(wire)) out = out.replace(new RegExp(`(?<![\\w.])${escaped(wire)}(?![\\w])`, 'g'), flag);
  }
  return out;
}
