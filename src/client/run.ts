/**
 * Runs client commands: declares the options each one uses, settles where it talks to and as
 * whom (flags, then environment, then the saved profile), prints the answer, and prints any
 * failure — commander's own usage errors included — through the one error printer.
 */
import { CommanderError, Option, type Command } from 'commander';
import type { FieldWords } from './cli-words.js';
import { nearest, nearestHandle } from './did-you-mean.js';
import { EXIT, HubAnswerError, printError, UnreachableError, UsageError, withHint } from './errors.js';
import { hubBaseOf, normalizeBase, type Target } from './http.js';
import { DEFAULT_PROFILE, profileNames, readProfile, type SavedProfile } from './profiles.js';

export const DEFAULT_URL = 'http://127.0.0.1:7420/';

/**
 * What a command uses: a hub (its URL; not for a local command), a profile (any command that
 * talks to a hub, and logout), the agent token, the admin token, an operator token (the commands
 * where an operator acts on or reads an agent it owns).
 */
export interface Uses {
  hub?: boolean;
  profile?: boolean;
  token?: boolean;
  admin?: boolean;
  operator?: boolean;
  /** The command saves or forgets the profile it names (login, logout): a profile not saved yet is no mistake. */
  newProfile?: boolean;
  /** What --json prints, when not one document (watch, attach); false: no --json (mcp: stdout is MCP). */
  json?: string | false;
}

/** The commands whose --profile may name a profile not saved yet. */
const NEW_PROFILE_OK = new WeakSet<Command>();

/** A client sub-command of `parent` with the shared options it uses, and only those (its --help lists them). */
export function client(parent: Command, spec: string, description: string, uses: Uses = {}): Command {
  const { hub = true, profile = hub, token = hub, admin = false, operator = false, newProfile = false } = uses;
  const json = uses.json ?? 'print one JSON document: the answer, or {"error": …} (see docs/cli.md)';
  const command = parent.command(spec).description(description);
  if (newProfile) NEW_PROFILE_OK.add(command);
  if (hub)
    command.addOption(
      new Option('--url <base>', `the hub base URL (default: the profile's, else ${DEFAULT_URL})`).env('MUSTER_URL'),
    );
  if (profile)
    command.addOption(
      new Option('--profile <name>', `the saved login to use (default "${DEFAULT_PROFILE}")`).env('MUSTER_PROFILE'),
    );
  if (token)
    command.addOption(new Option('--token <token>', "your agent token (default: the profile's)").env('MUSTER_TOKEN'));
  if (admin) command.addOption(new Option('--admin-token <token>', 'the admin token').env('MUSTER_ADMIN_TOKEN'));
  if (operator)
    command.addOption(
      new Option(
        '--operator-token <token>',
        'an operator token: sent instead of the agent token, for an agent the operator owns',
      ).env('MUSTER_OPERATOR_TOKEN'),
    );
  return json === false ? command : command.option('--json', json);
}

interface SharedOptions {
  url?: string;
  profile?: string;
  token?: string;
  adminToken?: string;
  operatorToken?: string;
  json?: boolean;
}

export interface Context<O = Record<string, never>> {
  /** Where to send and the token to send (from --operator-token, MUSTER_OPERATOR_TOKEN, --token, MUSTER_TOKEN or the profile). */
  readonly target: Target;
  /** The profile in use: its name, what it holds, and whether the target's token came from it. */
  readonly profile: { name: string; saved: SavedProfile | undefined; tokenFromProfile: boolean };
  /** The command's own options (commander's camelCase names). */
  options: O;
  /** The admin token from --admin-token or MUSTER_ADMIN_TOKEN; a usage error without one. */
  adminToken(): string;
  /** Prints an answer: as JSON with --json, else rendered for people. */
  show<T>(answer: T, render: (answer: T) => string): void;
  json: boolean;
}

const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

function profileOf(flag: string | undefined, mayBeNew: boolean): Context['profile'] {
  const name = flag || DEFAULT_PROFILE;
  if (!PROFILE_NAME.test(name))
    throw new UsageError(
      `--profile '${name}' is not a profile name`,
      'Use letters, digits, ".", "_" or "-", e.g. --profile work',
    );
  const saved = readProfile(name);
  // A profile named (not the default) but never saved is a slip, not a reason to try the default hub.
  if (!saved && name !== DEFAULT_PROFILE && !mayBeNew) {
    const names = profileNames();
    const guess = nearest(name, names);
    throw new UsageError(
      `there is no profile '${name}'${names.length > 0 ? ` (saved: ${names.join(', ')})` : ''}`,
      guess
        ? `Did you mean --profile ${guess}?`
        : `Save it with muster login --profile ${name} --url <hub> --token <token>`,
    );
  }
  return { name, saved, tokenFromProfile: false };
}

/** A URL given as --url, or the hub's own base when it is an agent's or a space's base (told on stderr). */
function hubUrlOf(given: string): string {
  const url = normalizeBase(given);
  const hub = hubBaseOf(url);
  if (hub !== url)
    process.stderr.write(`muster: ${url} is an A2A base on a hub, not the hub's: using the hub at ${hub}\n`);
  return hub;
}

/**
 * The profile's token goes only to the profile's own hub: a --url or MUSTER_URL naming another
 * hub gets the token from --token or MUSTER_TOKEN, or none.
 */
function context<O>(options: SharedOptions & O, json: boolean, mayBeNew: boolean): Context<O> {
  let settled: { target: Target; profile: Context['profile'] } | undefined;
  const settle = () => {
    if (settled) return settled;
    const profile = profileOf(options.profile, mayBeNew);
    const url = options.url !== undefined ? hubUrlOf(options.url) : normalizeBase(profile.saved?.url ?? DEFAULT_URL);
    const profileToken = profile.saved && normalizeBase(profile.saved.url) === url ? profile.saved.token : undefined;
    // An --operator-token or MUSTER_OPERATOR_TOKEN (on the commands that take one) is sent instead
    // of any agent token. A --token or MUSTER_TOKEN that is set wins over the profile's, even
    // empty: `MUSTER_TOKEN= muster get …` sends none.
    if (options.operatorToken) {
      settled = { target: { url, token: options.operatorToken }, profile: { ...profile, tokenFromProfile: false } };
      return settled;
    }
    const token = options.token !== undefined ? options.token || undefined : profileToken;
    settled = {
      target: { url, token },
      profile: { ...profile, tokenFromProfile: options.token === undefined && token !== undefined },
    };
    return settled;
  };
  return {
    get target() {
      return settle().target;
    },
    get profile() {
      return settle().profile;
    },
    options,
    json,
    adminToken() {
      if (options.adminToken) return options.adminToken;
      throw new UsageError(
        'This command needs the admin token',
        'Pass --admin-token or set MUSTER_ADMIN_TOKEN (the hub prints where its admin token file is at start)',
      );
    },
    show: <T>(answer: T, render: (answer: T) => string) =>
      void process.stdout.write(`${json ? JSON.stringify(answer, null, 2) : render(answer)}\n`),
  };
}

/**
 * A failure as the user should read it: the hub's refusal with this command's fields named by its
 * flags (`words`), the nearest handle when the hub knows no agent by the name given, and, when
 * no hub answered at the default URL, that no hub was named.
 */
async function explained<O>(
  failure: unknown,
  ctx: Context<O>,
  options: SharedOptions,
  words: FieldWords,
): Promise<unknown> {
  if (failure instanceof HubAnswerError) {
    const refusal = Object.keys(words).length > 0 ? failure.inWordsOf(words) : failure;
    const typed =
      refusal.code === 'AGENT_NOT_FOUND' ? /^No agent '([^']+)'/.exec(refusal.inHubWords.message)?.[1] : undefined;
    const guess = typed && (await nearestHandle(ctx.target, typed));
    return guess ? withHint(refusal, `Did you mean ${guess}? ${refusal.hint ?? ''}`.trim()) : refusal;
  }
  if (failure instanceof UnreachableError && options.url === undefined && !ctx.profile.saved)
    return withHint(
      failure,
      'No hub was named and no profile is saved: pass --url, or save one with muster login --url <hub> --token <token>',
    );
  return failure;
}

/**
 * Wraps a command's handler for commander: `handler(ctx, ...arguments)`. Failures go to the one
 * error printer, which sets the exit status; nothing is thrown back to commander. `words` names the
 * command's own wire fields by the flags and arguments that set them.
 */
export function action<O, A extends unknown[]>(
  handler: (ctx: Context<O>, ...args: A) => Promise<void>,
  words: FieldWords = {},
) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const options = command.opts<SharedOptions & O>();
    const json = options.json === true;
    const ctx = context(options, json, NEW_PROFILE_OK.has(command));
    try {
      await handler(ctx, ...(received.slice(0, -2) as A));
    } catch (error) {
      printError(await explained(error, ctx, options, words).catch(() => error), json);
    }
  };
}

const commandPath = (command: Command): string =>
  command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();

/**
 * Commander's refusal in the CLI's shape: its first line is the message, its "(Did you mean …?)"
 * joins the hint that names the command's help.
 */
export function usageErrorOf(said: string, command: Command): UsageError {
  const [line = '', ...more] = said
    .trim()
    .replace(/^error: /, '')
    .split('\n');
  // "option '--limit <n>' argument '100' is invalid. must be …" reads as "--limit '100': must be …"
  const first = line.replace(/^option '(-[\w-]+)[^']*' argument '(.*)' is invalid\. /, "$1 '$2': ");
  const guess = /\(Did you mean (.+)\?\)/.exec(more.join(' '))?.[1];
  const path = commandPath(command);
  const help = `See ${path} --help`;
  if (!guess) return new UsageError(first, help);
  return new UsageError(first, `Did you mean ${guess.startsWith('-') ? guess : `${path} ${guess}`}? ${help}`);
}

/**
 * Parses the command line. Commander's own refusals (an unknown option, a missing argument, a
 * bad option value) exit 2 like every usage error, printed as every error is: `muster: …` and a
 * hint naming the command's help (with --json, the error document).
 */
export async function runProgram(program: Command, argv = process.argv): Promise<void> {
  const json = argv.slice(2).includes('--json');
  let said = '';
  let failing = program;
  const settle = (command: Command): void => {
    command.exitOverride().configureOutput({
      outputError: (text) => {
        failing = command;
        said = text;
      },
    });
    command.commands.forEach(settle);
  };
  settle(program);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    if (e.exitCode === 0) return void (process.exitCode = 0); // --help, --version
    if (e.code === 'commander.help') return void (process.exitCode = EXIT.usage); // a group named without its command: its help is shown
    printError(usageErrorOf(said || e.message, failing), json);
  }
}
