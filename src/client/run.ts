/**
 * Runs client commands: declares the options each one uses, settles where it talks to and as
 * whom (flags, then environment, then the saved profile), prints the answer, and prints any
 * failure — commander's own usage errors included — through the one error printer.
 */
import { CommanderError, Option, type Command } from 'commander';
import { EXIT, printError, UsageError } from './errors.js';
import { normalizeBase, type Target } from './http.js';
import { DEFAULT_PROFILE, readProfile, type SavedProfile } from './profiles.js';

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
}

/** A client sub-command of `parent` with the shared options it uses, and only those (its --help lists them). */
export function client(parent: Command, spec: string, description: string, uses: Uses = {}): Command {
  const { hub = true, profile = hub, token = hub, admin = false, operator = false } = uses;
  const command = parent.command(spec).description(description);
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
  return command.option('--json', 'print one JSON document: the answer, or {"error": …} (see docs/cli.md)');
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

function profileOf(flag: string | undefined): Context['profile'] {
  const name = flag || DEFAULT_PROFILE;
  if (!PROFILE_NAME.test(name))
    throw new UsageError(
      `--profile '${name}' is not a profile name`,
      'Use letters, digits, ".", "_" or "-", e.g. --profile work',
    );
  return { name, saved: readProfile(name), tokenFromProfile: false };
}

/**
 * The profile's token goes only to the profile's own hub: a --url or MUSTER_URL naming another
 * hub gets the token from --token or MUSTER_TOKEN, or none.
 */
function context<O>(options: SharedOptions & O, json: boolean): Context<O> {
  let settled: { target: Target; profile: Context['profile'] } | undefined;
  const settle = () => {
    if (settled) return settled;
    const profile = profileOf(options.profile);
    const url = normalizeBase(options.url ?? profile.saved?.url ?? DEFAULT_URL);
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
 * Wraps a command's handler for commander: `handler(ctx, ...arguments)`. Failures go to the one
 * error printer, which sets the exit status; nothing is thrown back to commander.
 */
export function action<O, A extends unknown[]>(handler: (ctx: Context<O>, ...args: A) => Promise<void>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const options = command.opts<SharedOptions & O>();
    const json = options.json === true;
    try {
      await handler(context(options, json), ...(received.slice(0, -2) as A));
    } catch (error) {
      printError(error, json);
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
