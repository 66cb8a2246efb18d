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
  [/POST \/api\/agents\/(?:\{handle\}|<handle>)\/token\b/g, 'muster token rotate --agent <handle>'],
  [/POST \/api\/agents\/([^/\s{}]+)\/token\b/g, 'muster token rotate --agent $1'],
  [/GET \/api\/(inbox|sent)\?agent=(<handle>|\{handle\})/g, 'muster $1 --agent <handle>'],
  [/GET \/api\/(inbox|sent)\?agent=([^\s&.,;)]+)/g, 'muster $1 --agent $2'],
  [/POST \/api\/operators(?![/\w])/g, 'muster operator create'],
  [/GET \/api\/spaces\/\{name\}\/intents\?state=claimable/g, 'muster intents <space>'],
  [/GET \/api\/spaces\/([^/\s{};,]+)\/intents(?:\?state=claimable)?/g, 'muster intents $1'],
  [/POST \/api\/tasks\/([^/\s{}]+)\/claim/g, 'muster claim $1'],
  [/PUT \/api\/spaces\/([^/\s]+)\/members\/([^/\s]+) \{"role": "(\w+)"\}/g, 'muster space member add $1 $2 --role $3'],
  [/PUT \/api\/spaces\/([^/\s]+)\/members\/\{handle\}/g, 'muster space member add $1 <handle> --role orchestrator'],
  [/GET \/api\/spaces\/([^/\s{};,]+)/g, 'muster space show $1'],
  [/GET \/api\/spaces(?![/\w])/g, 'muster space list'],
  [/POST \/api\/spaces(?![/\w])/g, 'muster space create'],
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

/** A2A method names and header talk, in commands and flags: a CLI user runs commands, not methods. */
const COMMAND_OF_WORDS: readonly [RegExp, string][] = [
  [/\bGetTask \(metadata\.muster\.cancelReason\)/g, 'muster get (its reason line)'],
  [/\bGetTask\b/g, 'muster get'],
  [/\bSubscribeToTask\b/g, 'muster watch'],
  [/\bCancelTask\b/g, 'muster cancel'],
  [/\bListTasks\b/g, 'muster inbox'],
  [/\bSendMessage\b/g, 'muster send'],
  [/\{"skill": ?"board\.(\w+)"[^}]*\}/g, 'muster board $1'],
  [/ \(and (\d+) more fields?, listed in the error's fields\)/g, ' (and $1 more)'],
  [/Send Authorization: Bearer <token>/g, 'Pass --token or set MUSTER_TOKEN'],
  [/\bmuster (inbox|sent)\?agent=(\S+?)(?=[\s.,;)]|$)/g, 'muster $1 --agent $2'],
];

/** A command's own wire fields and the flags or arguments that set them (e.g. `answer`'s body is its `<text...>`). */
export type FieldWords = Readonly<Record<string, string>>;

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A violation's field as the CLI user knows it: the flag for the field or for what it is inside of
 * (`artifacts[0].parts` is --artifact-text), else the field as the hub named it.
 */
export function flagOfField(field: string, words: FieldWords = {}): string {
  const owner = (table: FieldWords, name: string) =>
    Object.keys(table)
      .sort((a, b) => b.length - a.length)
      .find((wire) => name === wire || name.startsWith(`${wire}.`) || name.startsWith(`${wire}[`));
  const own = owner(words, field.replace(/^params\./, ''));
  if (own !== undefined) return words[own]!;
  const shared = owner(FLAG_OF_FIELD, field);
  return shared !== undefined ? FLAG_OF_FIELD[shared]! : field;
}

/**
 * A message or hint in the CLI's words: REST routes become commands, and field paths become flags.
 * Only paths no prose word could be (dotted, or camelCase) are rewritten in running text; plain
 * words such as "state" or "limit" are only rewritten as a violation's field.
 */
export function inCliWords(text: string, words: FieldWords = {}): string {
  let out = text;
  for (const [route, command] of [...COMMAND_OF_ROUTE, ...COMMAND_OF_WORDS]) out = out.replace(route, command);
  // A command's own paths first, longest first, each with what lies inside it (`….data.body[0]`).
  for (const wire of Object.keys(words).sort((a, b) => b.length - a.length)) {
    if (!/[.A-Z[]/.test(wire)) continue;
    out = out.replace(
      new RegExp(`(?<![\\w.])(?:params\\.)?${escaped(wire)}(?:\\.\\w+|\\[\\d+\\])*(?![\\w])`, 'g'),
      words[wire]!,
    );
  }
  for (const [wire, flag] of Object.entries(FLAG_OF_FIELD)) {
    if (/[.A-Z]/.test(wire)) out = out.replace(new RegExp(`(?<![\\w.])${escaped(wire)}(?![\\w])`, 'g'), flag);
  }
  return out;
}
