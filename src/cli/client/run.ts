/** Runs one client command: reads the shared options, prints the answer, and prints any failure. */
import { Option, type Command } from 'commander';
import { printError } from './errors.js';
import { normalizeBase, type Target } from './http.js';

const DEFAULT_URL = 'http://127.0.0.1:7420/';

/** A client sub-command of `parent`, with the options every client command takes. */
export function client(parent: Command, spec: string, description: string): Command {
  return parent
    .command(spec)
    .description(description)
    .addOption(new Option('--url <base>', 'the hub base URL').env('MUSTER_URL').default(DEFAULT_URL))
    .addOption(new Option('--token <token>', 'your agent token').env('MUSTER_TOKEN'))
    .option('--json', 'print the raw JSON answer');
}

interface SharedOptions {
  url: string;
  token?: string;
  json?: boolean;
}

export interface Context<O = Record<string, never>> {
  target: Target;
  /** The command's own options (commander's camelCase names). */
  options: O;
  /** Prints an answer: as JSON with --json, else rendered for people. */
  show<T>(answer: T, render: (answer: T) => string): void;
}

/**
 * Wraps a command's handler for commander: `handler(ctx, ...arguments)`. Failures go to the one
 * error printer and exit 1; nothing is thrown back to commander.
 */
export function action<O, A extends unknown[]>(handler: (ctx: Context<O>, ...args: A) => Promise<void>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const options = command.opts<SharedOptions & O>();
    const json = options.json === true;
    try {
      const target: Target = { url: normalizeBase(options.url), token: options.token || undefined };
      const show = <T>(answer: T, render: (answer: T) => string) =>
        process.stdout.write(`${json ? JSON.stringify(answer, null, 2) : render(answer)}\n`);
      await handler({ target, options, show }, ...(received.slice(0, -2) as A));
    } catch (error) {
      printError(error, json);
    }
  };
}
