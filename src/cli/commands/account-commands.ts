/** Who you are on a hub: login and logout (saved profiles), whoami, and your tokens. */
import type { Command } from 'commander';
import { CliError, EXIT } from '../../client/errors.js';
import { fields, renderMe, renderTokens } from '../../client/format.js';
import { path, request, type Target } from '../../client/http.js';
import { removeProfile, saveProfile } from '../../client/profiles.js';
import { action, client, type Context } from '../../client/run.js';
import type { Me, Page, TokenInfo } from '../../client/wire.js';

const LOGIN_HINT = 'Run muster login --url <hub> --token <token>, or pass --token or set MUSTER_TOKEN';

const whoIs = async (target: Target): Promise<Me> => (await request(target, 'api/me')) as Me;

/** The agent the token belongs to: token, endpoint and forwarding commands act on its own. */
export async function myHandle(target: Target): Promise<string> {
  const me = await whoIs(target);
  if (me.kind === 'agent') return me.handle;
  if (me.kind === 'anonymous')
    throw new CliError('UNAUTHENTICATED', 'No token was sent: this acts on your own agent', EXIT.refused, LOGIN_HINT);
  if (me.kind === 'operator')
    throw new CliError(
      'USAGE',
      'An operator token acts on an agent it owns: name it',
      EXIT.usage,
      'Pass --agent <handle>',
    );
  throw new CliError(
    'FORBIDDEN',
    'The admin token is no agent: this acts on your own agent',
    EXIT.refused,
    'Use an agent token',
  );
}

/** The `--agent` option of a command an operator may run for an agent it owns. */
export const agentOption = (command: Command): Command =>
  command.option('--agent <handle>', 'the agent to act on, one your operator token owns (default: your own agent)');

/** The agent a command acts on: the one named by --agent (its operator's), else the token's own. */
export const agentActedOn = async (ctx: Context<{ agent?: string }>): Promise<string> =>
  ctx.options.agent ?? (await myHandle(ctx.target));

export function accountCommands(program: Command): void {
  client(
    program,
    'login',
    "check a token (an agent's, or an operator's with --operator-token) against a hub and save both as a profile",
    { operator: true, newProfile: true },
  ).action(
    action(async (ctx: Context) => {
      const { target, profile } = ctx;
      if (!target.token)
        throw new CliError(
          'USAGE',
          'login needs the token to save',
          EXIT.usage,
          'Pass --token <token> (or set MUSTER_TOKEN), and --url <hub>',
        );
      const me = await whoIs(target);
      saveProfile(profile.name, { url: target.url, token: target.token });
      ctx.show(
        { profile: profile.name, url: target.url, ...me },
        () => `Logged in to ${target.url} as ${renderMe(me)}\n(saved as profile "${profile.name}")`,
      );
    }),
  );

  client(program, 'logout', 'forget a saved profile (the token stays valid: muster token revoke ends it)', {
    hub: false,
    profile: true,
    newProfile: true,
  }).action(
    action(async (ctx: Context) => {
      const { name } = ctx.profile;
      const removed = removeProfile(name);
      ctx.show({ profile: name, removed }, () =>
        removed ? `Forgot profile "${name}".` : `There was no profile "${name}".`,
      );
    }),
  );

  client(program, 'whoami', 'show who your token belongs to; exits 1 when no token is sent').action(
    action(async (ctx: Context) => {
      const me = await whoIs(ctx.target);
      if (me.kind === 'anonymous')
        throw new CliError('UNAUTHENTICATED', 'You are anonymous: no token was sent', EXIT.refused, LOGIN_HINT);
      ctx.show(me, renderMe);
    }),
  );

  const token = program
    .command('token')
    .description("your tokens (or, with --operator-token and --agent, an owned agent's): list, rotate, revoke");
  const tokenCommand = (spec: string, description: string) =>
    agentOption(client(token, spec, description, { operator: true }));

  tokenCommand('list', 'list your tokens: ids and dates, never the tokens').action(
    action(async (ctx: Context<{ agent?: string }>) => {
      const handle = await agentActedOn(ctx);
      const { tokens } = (await request(ctx.target, `api/agents/${path(handle)}/tokens`)) as { tokens: TokenInfo[] };
      ctx.show({ items: tokens } satisfies Page<TokenInfo>, renderTokens);
    }),
  );

  tokenCommand('rotate', 'replace your token: prints the new one once; every older one stops working').action(
    action(async (ctx: Context<{ agent?: string }>) => {
      const handle = await agentActedOn(ctx);
      const { token: fresh } = (await request(ctx.target, `api/agents/${path(handle)}/token`, { method: 'POST' })) as {
        token: string;
      };
      // The profile's own token has just stopped working: the profile keeps the new one (not when
      // it holds an operator's token that rotated an owned agent's).
      const kept = ctx.profile.tokenFromProfile && ctx.options.agent === undefined;
      if (kept) saveProfile(ctx.profile.name, { url: ctx.target.url, token: fresh });
      ctx.show({ handle, token: fresh, ...(kept ? { profile: ctx.profile.name } : {}) }, () =>
        [
          `New token for ${handle}; every older token stopped working.`,
          ...fields([['token', fresh]]).map((l) => `  ${l}`),
          '',
          kept
            ? `Profile "${ctx.profile.name}" now holds it. It is shown this once.`
            : `It is shown this once. Store it now, e.g.:\n  export MUSTER_TOKEN=${fresh}`,
        ].join('\n'),
      );
    }),
  );

  tokenCommand('revoke <tokenId>', 'revoke one of your tokens by its id (muster token list shows them)').action(
    action(async (ctx: Context<{ agent?: string }>, id: string) => {
      const handle = await agentActedOn(ctx);
      await request(ctx.target, `api/agents/${path(handle)}/tokens/${path(id)}`, { method: 'DELETE' });
      ctx.show({ handle, id, revoked: true }, () => `Revoked token ${id} of ${handle}.`);
    }),
  );
}
