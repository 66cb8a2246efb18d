/**
 * Spaces and work intents from the command line: make and change spaces, declare intents, list
 * them, and a worker's loop (claim, heartbeat, progress, ask, land, fail, release), plus
 * withdraw. The kind's own commands, kept in its folder; they import only from the client
 * (src/client/), so the client CLI never loads the hub.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../../../client/errors.js';
import { path, request, rpc } from '../../../client/http.js';
import { nextCommand, pageOf, pageOptions, wholeNumber } from '../../../client/paging.js';
import { action, client, type Context } from '../../../client/run.js';
import { wordOrState } from '../../../client/states.js';
import type { RestPage, Task } from '../../../client/wire.js';
import { actOn, declareIntent, listIntents, spaceBase } from './calls.js';
import {
  DECLARATION_WORDS,
  renderAsked,
  renderClaimed,
  renderDeclared,
  renderHeartbeat,
  renderIntents,
  renderOutcome,
  renderProgress,
  renderSpace,
  renderSpaces,
  renderSpaceWithMembers,
  type FieldWords,
  type Member,
  type Space,
} from './format.js';
import type { KindCli } from '../../kind-client.js';
import { workIntent } from './demo.js';
import { LEASE_SECONDS, PRIORITY } from '../limits.js';

// The hub's own ranges (limits.ts), checked before sending so a bad value is a usage error (exit 2).
const priority = () => wholeNumber(PRIORITY.min, PRIORITY.max);
const lease = (command: Command): Command =>
  command.option(
    '--lease <seconds>',
    `how long the lease lasts (${LEASE_SECONDS.min} to ${LEASE_SECONDS.max} seconds, default 600)`,
    wholeNumber(LEASE_SECONDS.min, LEASE_SECONDS.max),
  );
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --state for intents: claimable, open, all, or any task state. */
const intentState = wordOrState(['claimable', 'open', 'all']);

/** `--file PATH[:WHY]`: the path up to the first colon, the rest why. */
function landedFile(value: string, previous: { path: string; why?: string }[] = []): { path: string; why?: string }[] {
  const at = value.indexOf(':');
  const [file, why] = at < 0 ? [value, ''] : [value.slice(0, at), value.slice(at + 1).trim()];
  if (file.trim() === '')
    throw new InvalidArgumentError('must be PATH or PATH:WHY, e.g. --file src/links/limit.ts:the limiter');
  return [...previous, { path: file.trim(), ...(why ? { why } : {}) }];
}

/** Runs a handler with the hub's refusals in this command's words: its own flags, and a declaration's (format.ts). */
const intentAction = <O, A extends unknown[]>(
  words: FieldWords,
  handler: (ctx: Context<O>, ...args: A) => Promise<void>,
) => action<O, A>(handler, { ...DECLARATION_WORDS, ...words });

function spaceCommands(program: Command): void {
  const space = program.command('space').description('spaces: where work intents are declared and claimed');
  const spaceWords: FieldWords = {
    name: '<name>',
    description: '--description',
    claim: '--claim',
    orchestratorPriority: '--orchestrator-priority',
    role: '--role',
  };
  const claimOption = () =>
    new Option('--claim <who>', 'who claims: open (any registered agent) or members (workers and the owner)').choices([
      'open',
      'members',
    ]);
  const capOption = () =>
    new Option(
      '--orchestrator-priority <n>',
      `the highest priority orchestrators declare at (${PRIORITY.min} to ${PRIORITY.max})`,
    ).argParser(priority());

  interface SpaceOptions {
    description?: string | false;
    claim?: string;
    orchestratorPriority?: number;
  }
  const changes = (o: SpaceOptions) => ({
    ...(o.description !== undefined ? { description: o.description === false ? null : o.description } : {}),
    ...(o.claim !== undefined ? { claim: o.claim } : {}),
    ...(o.orchestratorPriority !== undefined ? { orchestratorPriority: o.orchestratorPriority } : {}),
  });

  client(space, 'create <name>', 'make a space you own (name: 2 to 40 lowercase letters, digits and -)')
    .option('--description <text>', 'what the space is for')
    .addOption(claimOption())
    .addOption(capOption())
    .action(
      intentAction(spaceWords, async (ctx: Context<SpaceOptions>, name: string) => {
        const made = (await request(ctx.target, 'api/spaces', { body: { name, ...changes(ctx.options) } })) as Space;
        ctx.show(
          made,
          (s) =>
            `made space ${s.name}; add members with: muster space member add ${s.name} <handle> --role worker\n${renderSpace(s)}`,
        );
      }),
    );

  client(space, 'show <name>', 'show a space and its members', { token: false }).action(
    intentAction(spaceWords, async (ctx: Context, name: string) => {
      ctx.show(
        (await request(ctx.target, `api/spaces/${path(name)}`)) as Space & { members: Member[] },
        renderSpaceWithMembers,
      );
    }),
  );

  pageOptions(client(space, 'list', 'list the spaces on the hub, by name', { token: false }), 'spaces').action(
    intentAction(spaceWords, async (ctx: Context<{ limit?: number; cursor?: string }>) => {
      const { limit, cursor } = ctx.options;
      const page = pageOf((await request(ctx.target, 'api/spaces', { query: { limit, cursor } })) as RestPage<Space>);
      ctx.show(page, (p) =>
        renderSpaces(p, nextCommand(['space', 'list', ...(limit ? ['--limit', String(limit)] : [])], p)),
      );
    }),
  );

  client(space, 'set <name>', 'change a space (its owner or the admin)')
    .option('--description <text>', 'what the space is for')
    .option('--no-description', 'remove the description')
    .addOption(claimOption())
    .addOption(capOption())
    .action(
      intentAction(spaceWords, async (ctx: Context<SpaceOptions>, name: string) => {
        const body = changes(ctx.options);
        if (Object.keys(body).length === 0)
          throw new UsageError(
            'space set needs something to change',
            'Pass --description, --no-description, --claim or --orchestrator-priority',
          );
        ctx.show(
          (await request(ctx.target, `api/spaces/${path(name)}`, { method: 'PATCH', body })) as Space,
          (s) => `changed space ${s.name}\n${renderSpace(s)}`,
        );
      }),
    );

  const member = space.command('member').description("a space's members: orchestrators declare, workers claim");

  client(member, 'add <name> <handle>', 'make an agent an orchestrator or a worker of a space (or change its role)')
    .addOption(
      new Option('--role <role>', 'orchestrator (declares, withdraws its own) or worker (claims)')
        .choices(['orchestrator', 'worker'])
        .makeOptionMandatory(),
    )
    .action(
      intentAction(spaceWords, async (ctx: Context<{ role: string }>, name: string, handle: string) => {
        const added = (await request(ctx.target, `api/spaces/${path(name)}/members/${path(handle)}`, {
          method: 'PUT',
          body: { role: ctx.options.role },
        })) as Member;
        ctx.show(
          { space: name, ...added },
          (m) => `${m.handle} is a${m.role === 'orchestrator' ? 'n' : ''} ${m.role} in space ${m.space}`,
        );
      }),
    );

  client(member, 'remove <name> <handle>', 'remove a member from a space').action(
    intentAction(spaceWords, async (ctx: Context, name: string, handle: string) => {
      await request(ctx.target, `api/spaces/${path(name)}/members/${path(handle)}`, { method: 'DELETE' });
      ctx.show({ space: name, handle, removed: true }, (r) => `removed ${r.handle} from space ${r.space}`);
    }),
  );
}

interface DeclareOptions {
  footprint: string[];
  why?: string;
  acceptance?: string[];
  priority?: number;
  force?: boolean;
  wait?: boolean;
}

/** Client sub-commands for spaces and work intents (see docs/cli.md, "Spaces and work intents"). */
function intentCommands(program: Command): void {
  spaceCommands(program);

  client(program, 'declare <space> <title>', 'declare a work intent in a space (its owner or an orchestrator)')
    .requiredOption('--footprint <glob>', 'a path or glob the work will touch (repeat for more)', collect)
    .option('--why <text>', 'why the work is needed: the detail after the title')
    .option('--acceptance <check>', 'a check the work must pass (repeat for more)', collect)
    .option(
      '--priority <n>',
      `${PRIORITY.min} to ${PRIORITY.max}, higher is claimed first (default ${PRIORITY.min}; orchestrators are capped at the space's cap)`,
      priority(),
    )
    .option('--force', 'declare it even if it repeats an open or just-landed intent')
    .option('--wait', "wait (up to the hub's MUSTER_INTENT_WAIT_S) for the intent to land or need input")
    .action(
      intentAction({}, async (ctx: Context<DeclareOptions>, space: string, title: string) => {
        const { footprint, why, acceptance, priority: asked, force, wait } = ctx.options;
        if (title.includes('\n')) throw new UsageError('<title> must be one line', 'Put the detail in --why');
        const task = await declareIntent(
          ctx,
          space,
          { title, why, footprint, acceptance, priority: asked, force },
          wait,
        );
        ctx.show(task, (t) => renderDeclared(t, asked));
      }),
    );

  pageOptions(
    client(program, 'intents <space>', "list a space's intents: claimable ones highest priority first, then oldest", {
      token: false,
    }).option(
      '--state <state>',
      'claimable, open, all, or a state such as working or completed (default claimable)',
      intentState,
    ),
    'intents',
  ).action(
    intentAction(
      { state: '--state' },
      async (ctx: Context<{ state?: string; limit?: number; cursor?: string }>, space: string) => {
        const { state, limit, cursor } = ctx.options;
        const page = await listIntents(ctx, space, { state, limit, cursor });
        const next = nextCommand(
          ['intents', space, ...(state ? ['--state', state] : []), ...(limit ? ['--limit', String(limit)] : [])],
          page,
        );
        ctx.show(page, (p) => renderIntents(p, space, state ?? 'claimable', next));
      },
    ),
  );

  const leaseWords: FieldWords = { leaseSeconds: '--lease' };
  lease(client(program, 'claim <id>', 'claim an intent: an exclusive lease on its work')).action(
    intentAction(leaseWords, async (ctx: Context<{ lease?: number }>, id: string) => {
      const { lease: seconds } = ctx.options;
      ctx.show(await actOn(ctx, id, 'claim', seconds !== undefined ? { leaseSeconds: seconds } : {}), renderClaimed);
    }),
  );

  lease(client(program, 'heartbeat <id>', 'keep the lease on an intent you hold')).action(
    intentAction(leaseWords, async (ctx: Context<{ lease?: number }>, id: string) => {
      const { lease: seconds } = ctx.options;
      ctx.show(
        await actOn(ctx, id, 'heartbeat', seconds !== undefined ? { leaseSeconds: seconds } : {}),
        renderHeartbeat,
      );
    }),
  );

  client(program, 'progress <id> <message...>', 'report progress on an intent you hold (added to its history)').action(
    intentAction({ message: '<message>' }, async (ctx: Context, id: string, message: string[]) => {
      ctx.show(await actOn(ctx, id, 'progress', { message: message.join(' ') }), renderProgress);
    }),
  );

  client(
    program,
    'ask <id> <question...>',
    'ask the declarer a question about an intent you hold (input-required)',
  ).action(
    intentAction({ message: '<question>' }, async (ctx: Context, id: string, question: string[]) => {
      ctx.show(await actOn(ctx, id, 'input-required', { message: question.join(' ') }), renderAsked);
    }),
  );

  client(program, 'land <id>', 'land an intent you hold: what changed, the commit, the files')
    .requiredOption('--summary <text>', 'what the change does')
    .option('--commit <sha>', 'the commit that holds the change')
    .option('--file <path[:why]>', 'a file the change wrote, and why (repeat for more)', landedFile)
    .action(
      intentAction(
        { summary: '--summary', commit: '--commit', files: '--file' },
        async (
          ctx: Context<{ summary: string; commit?: string; file?: { path: string; why?: string }[] }>,
          id: string,
        ) => {
          const { summary, commit, file } = ctx.options;
          ctx.show(
            await actOn(ctx, id, 'land', {
              summary,
              ...(commit !== undefined ? { commit } : {}),
              ...(file ? { files: file } : {}),
            }),
            renderOutcome('landed'),
          );
        },
      ),
    );

  client(program, 'fail <id>', 'give up an intent you hold: it fails, with the reason')
    .requiredOption('--reason <text>', 'why the work cannot be done')
    .action(
      intentAction({ reason: '--reason' }, async (ctx: Context<{ reason: string }>, id: string) => {
        ctx.show(await actOn(ctx, id, 'fail', { reason: ctx.options.reason }), renderOutcome('failed'));
      }),
    );

  client(program, 'release <id>', 'let go of an intent you hold: it is open again for any worker').action(
    intentAction({}, async (ctx: Context, id: string) => {
      ctx.show(await actOn(ctx, id, 'release', {}), renderOutcome('released'));
    }),
  );

  client(
    program,
    'withdraw <id>',
    "withdraw an intent (the space's owner, its declarer or the admin): its worker stops",
  )
    .requiredOption('--space <name>', 'the space the intent is in')
    .option('--reason <text>', 'why, kept on the intent')
    .action(
      intentAction({}, async (ctx: Context<{ space: string; reason?: string }>, id: string) => {
        const { space, reason } = ctx.options;
        const params = { id, ...(reason !== undefined ? { metadata: { reason } } : {}) };
        ctx.show((await rpc(ctx.target, spaceBase(space), 'CancelTask', params)) as Task, renderOutcome('withdrew'));
      }),
    );
}

export const intentCli: KindCli = { commands: intentCommands, demo: workIntent };
