/**
 * `muster --help` for people: the commands in groups, by what they are for (as `gh` does), then
 * a few examples. A command no group names (a kind added later) stays under "Commands".
 */
import type { Command } from 'commander';

/** Each group's heading and its top-level commands, in the order of `muster --help`. */
const GROUPS: readonly [string, readonly string[]][] = [
  ['Run a hub', ['serve', 'migrate', 'config', 'demo']],
  ['You and your tokens', ['login', 'logout', 'whoami', 'token', 'register']],
  ['Tasks', ['send', 'get', 'inbox', 'sent', 'respond', 'cancel', 'watch']],
  ['Reviews and calls', ['review', 'contribute', 'answer', 'call']],
  [
    'Spaces and intents',
    ['space', 'declare', 'intents', 'claim', 'heartbeat', 'progress', 'ask', 'land', 'fail', 'release', 'withdraw'],
  ],
  ['Memory boards', ['board']],
  ['Agents and operators', ['agents', 'endpoint', 'forwarding', 'operator', 'keys']],
  ['Connect an agent', ['attach', 'mcp']],
];

const EXAMPLES = `
Examples:
  $ muster serve                                    # a hub on http://127.0.0.1:7420/
  $ muster register alice                           # prints alice's token, once
  $ muster login --url http://127.0.0.1:7420/ --token mst_…
  $ muster send bob "Translate this into German" --wait
  $ muster inbox                                    # what was sent to you
  $ muster respond TASK completed "Done"
  $ muster attach bob --exec "node answer.mjs"      # a command as an A2A agent
  $ claude mcp add muster -- muster mcp             # Claude Code, through MCP

Each command: muster <command> --help. Exit status: 0 done, 1 refused by the hub, 2 bad usage, 3 no hub. See docs/cli.md.
`;

/** Sorts `program`'s commands into their groups and adds the examples after the list. */
export function groupHelp(program: Command): void {
  for (const [heading, names] of GROUPS)
    for (const name of names) program.commands.find((c) => c.name() === name)?.helpGroup(`${heading}:`);
  program.addHelpText('after', EXAMPLES);
}
