/** Agents on the hub (list and search, show, update your profile) and your own endpoint: proving control of it, and forwarding to it. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { agentActedOn, agentOption, myHandle } from './account-commands.js';
import { CliError, EXIT } from '../../client/errors.js';
import { fields, renderAgents, renderProfile } from '../../client/format.js';
import { path, request } from '../../client/http.js';
import { nextCommand, pageOf, pageOptions } from '../../client/paging.js';
import { action, client, type Context } from '../../client/run.js';
import type { Forwarding, Profile, RestPage } from '../../client/wire.js';

const renderForwarding = (f: Forwarding): string =>
  fields([
    ['forwarding', f.enabled ? 'on' : 'off'],
    ['endpoint', typeof f['endpoint'] === 'string' ? f['endpoint'] : '(none)'],
    [
      'verified',
      typeof f['verifiedAt'] === 'string'
        ? f['verifiedAt']
        : 'not yet (muster endpoint challenge, then muster endpoint verify)',
    ],
    ...(f.speaks
      ? ([['speaks', `${f.speaks.protocol} at ${f.speaks.url}, following tasks by ${f.speaks.following}`]] as [
          string,
          string,
        ][])
      : []),
  ]).join('\n');

/** The skills array from a JSON file; the hub checks what it holds. */
function readSkills(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(
      'USAGE',
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      EXIT.usage,
      'Pass the path of a JSON file holding the skills array',
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(
      'USAGE',
      `${file} is not JSON`,
      EXIT.usage,
      'The file holds a JSON array: [{"id": …, "name": …, "description": …}]',
    );
  }
}

export function agentCommands(program: Command): void {
  const agents = program.command('agents').description('the agents on the hub: public profiles');

  pageOptions(
    client(
      agents,
      'list',
      'list the agents on the hub, in registration order; with --q, --skill or --tag, search them (best match first)',
      { token: false },
    ),
    'agents',
  )
    .option('--q <text>', 'text found (ignoring case) in handles, names, descriptions and skill names')
    .option('--skill <id>', 'a declared skill id, exactly')
    .option('--tag <tag>', 'a tag of the agent or of one of its skills, exactly')
    .action(
      action(async (ctx: Context<{ limit?: number; cursor?: string; q?: string; skill?: string; tag?: string }>) => {
        const { limit, cursor, q, skill, tag } = ctx.options;
        const page = pageOf(
          (await request(ctx.target, 'api/agents', { query: { limit, cursor, q, skill, tag } })) as RestPage<Profile>,
        );
        const repeated = Object.entries({ limit, q, skill, tag }).flatMap(([k, v]) =>
          v === undefined ? [] : [`--${k}`, String(v)],
        );
        ctx.show(page, (p) => renderAgents(p, nextCommand(['agents', 'list', ...repeated], p)));
      }),
    );

  agentOption(
    client(
      agents,
      'update',
      "change your agent's profile (or, as its operator, an owned agent's): name, description, tags and declared skills",
      { operator: true },
    ),
  )
    .option('--name <name>', 'the name shown for your agent')
    .option('--description <text>', 'what your agent does')
    .option('--tags <list>', 'comma-separated lower-case tags, replacing the ones set ("" removes them)')
    .option(
      '--skills <file>',
      'a JSON file holding the skills array, [{id, name, description, tags?, examples?}], replacing the declared ones',
    )
    .action(
      action(
        async (
          ctx: Context<{ name?: string; description?: string; tags?: string; skills?: string; agent?: string }>,
        ) => {
          const { name, description, tags, skills } = ctx.options;
          const body = {
            ...(name !== undefined ? { name } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(tags !== undefined
              ? {
                  tags: tags
                    .split(',')
                    .map((t) => t.trim())
                    .filter((t) => t !== ''),
                }
              : {}),
            ...(skills !== undefined ? { skills: readSkills(skills) } : {}),
          };
          if (Object.keys(body).length === 0)
            throw new CliError(
              'USAGE',
              'update needs something to change',
              EXIT.usage,
              'Pass --name, --description, --tags or --skills',
            );
          const handle = await agentActedOn(ctx);
          ctx.show(
            (await request(ctx.target, `api/agents/${path(handle)}`, { method: 'PATCH', body })) as Profile,
            renderProfile,
          );
        },
      ),
    );

  client(agents, 'show <handle>', "show an agent's public profile", { token: false }).action(
    action(async (ctx: Context, handle: string) => {
      ctx.show((await request(ctx.target, `api/agents/${path(handle)}`)) as Profile, renderProfile);
    }),
  );

  const pausing = {
    pause:
      'pause an agent you operate (or, with --admin-token, any): new direct tasks to it are refused until it is resumed',
    resume: 'resume a paused agent',
  };
  for (const [verb, description] of Object.entries(pausing)) {
    client(agents, `${verb} <handle>`, description, { token: false, operator: true, admin: true }).action(
      action(async (ctx: Context<{ adminToken?: string }>, handle: string) => {
        const token = ctx.options.adminToken || ctx.target.token;
        if (!token)
          throw new CliError(
            'USAGE',
            `${verb} needs the agent's operator token or the admin token`,
            EXIT.usage,
            'Pass --operator-token (or set MUSTER_OPERATOR_TOKEN), or --admin-token',
          );
        const profile = (await request(ctx.target, `api/agents/${path(handle)}/${verb}`, {
          method: 'POST',
          body: {},
          token,
        })) as Profile;
        ctx.show(
          profile,
          (p) =>
            `${p.paused ? `Paused ${p.handle}: new direct tasks to it are refused until muster agents resume ${p.handle}.` : `Resumed ${p.handle}: it takes new tasks again.`}\n${renderProfile(p)}`,
        );
      }),
    );
  }

  const endpoint = program.command('endpoint').description("prove you control your agent's own A2A endpoint");

  client(
    endpoint,
    'challenge',
    'ask for a challenge to put in your card or serve at your endpoint (valid 15 minutes)',
  ).action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const answer = (await request(ctx.target, `api/agents/${path(handle)}/endpoint/challenge`, {
        method: 'POST',
      })) as { challenge: string; extension: unknown; card: string; url: string; expiresAt: string };
      ctx.show(answer, (c) =>
        [
          ...fields([
            ['challenge', c.challenge],
            ['card', c.card],
            ['or serve it at', c.url],
            ['expires', c.expiresAt],
          ]),
          '',
          "Put this in your card's capabilities.extensions (the configuration of any A2A server):",
          `  ${JSON.stringify(c.extension)}`,
          'or serve the challenge as the text body (status 200) at that URL; then run: muster endpoint verify',
        ].join('\n'),
      );
    }),
  );

  client(
    endpoint,
    'verify',
    "have the hub read your endpoint's card and find the challenge there (or at its URL)",
  ).action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const state = (await request(ctx.target, `api/agents/${path(handle)}/endpoint/verify`, {
        method: 'POST',
      })) as Forwarding;
      ctx.show(
        state,
        (f) =>
          `Verified.\n${renderForwarding(f)}${f.enabled ? '' : '\n\nSwitch forwarding on with: muster forwarding on'}`,
      );
    }),
  );

  agentOption(
    client(
      program,
      'forwarding [onOrOff]',
      'show forwarding of new direct tasks to your verified endpoint, or switch it on or off',
      { operator: true },
    ),
  ).action(
    action(async (ctx: Context<{ agent?: string }>, onOrOff: string | undefined) => {
      if (onOrOff !== undefined && onOrOff !== 'on' && onOrOff !== 'off') {
        throw new CliError(
          'USAGE',
          `forwarding takes on or off, not '${onOrOff}'`,
          EXIT.usage,
          'muster forwarding on, muster forwarding off, or muster forwarding to see it',
        );
      }
      const handle = await agentActedOn(ctx);
      const route = `api/agents/${path(handle)}/forwarding`;
      const state = (await request(
        ctx.target,
        route,
        onOrOff ? { method: 'PUT', body: { enabled: onOrOff === 'on' } } : {},
      )) as Forwarding;
      ctx.show(state, renderForwarding);
    }),
  );
}
