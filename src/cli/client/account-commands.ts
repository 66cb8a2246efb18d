/** Who you are on a hub: login and logout (saved profiles), whoami, and your tokens. */
import type { Command } from 'commander';
import { CliError, EXIT } from './errors.js';
import { fields, renderMe, renderTokens } from './format.js';
import { path, request, type Target } from './http.js';
import { removeProfile, saveProfile } from './profiles.js';
import { action, client, type Context } from './run.js';
import type { Me, Page, TokenInfo } from './wire.js';

const LOGIN_HINT = 'Run muster login --url <hub> --token <token>, or pass --token or set MUSTER_TOKEN';

const whoIs = async (target: Target): Promise<Me> => (await request(target, 'api/me')) as Me;

/** The agent the token belongs to: token, endpoint and forwarding commands act on its own. */
export async function myHandle(target: Target): Promise<string> {
  const me = await whoIs(target);
  if (me.kind === 'agent') return me.handle;
  if (me.kind === 'anonymous') throw new CliError('UNAUTHENTICATED', 'No token was sent: this acts on your own agent', EXIT.refused, LOGIN_HINT);
  throw new CliError('FORBIDDEN', 'The admin token is no agent: this acts on your own agent', EXIT.refused, 'Use an agent token');
}

export function accountCommands(program: Command): void {
  client(program, 'login', 'check a token against a hub and save both as a profile')
    .action(
      action(async (ctx: Context) => {
        const { target, profile } = ctx;
        if (!target.token) throw new CliError('USAGE', 'login needs the token to save', EXIT.usage, 'Pass --token <token> (or set MUSTER_TOKEN), and --url <hub>');
        const me = await whoIs(target);
        saveProfile(profile.name, { url: target.url, token: target.token });
        ctx.show({ profile: profile.name, url: target.url, ...me }, () => `Logged in to ${target.url} as ${renderMe(me)}\n(saved as profile "${profile.name}")`);
      }),
    );

  client(program, 'logout', 'forget a saved profile (the token stays valid: muster token revoke ends it)', { hub: false, profile: true })
    .action(
      action(async (ctx: Context) => {
        const { name } = ctx.profile;
        const removed = removeProfile(name);
        ctx.show({ profile: name, removed }, () => (removed ? `Forgot profile "${name}".` : `There was no profile "${name}".`));
      }),
    );

  client(program, 'whoami', 'show who your token belongs to; exits 1 when no token is sent').action(
    action(async (ctx: Context) => {
      const me = await whoIs(ctx.target);
      if (me.kind === 'anonymous') throw new CliError('UNAUTHENTICATED', 'You are anonymous: no token was sent', EXIT.refused, LOGIN_HINT);
      ctx.show(me, renderMe);
    }),
  );

  const token = program.command('token').description('your tokens: list, rotate, revoke');

  client(token, 'list', 'list your tokens: ids and dates, never the tokens').action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const { tokens } = (await request(ctx.target, `api/agents/${path(handle)}/tokens`)) as { tokens: TokenInfo[] };
      ctx.show({ items: tokens } satisfies Page<TokenInfo>, renderTokens);
    }),
  );

  client(token, 'rotate', 'replace your token: prints the new one once; every older one stops working').action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const { token: fresh } = (await request(ctx.target, `api/agents/${path(handle)}/token`, { method: 'POST' })) as { token: string };
      // The profile's token has just stopped working: the profile keeps the new one.
      if (ctx.profile.tokenFromProfile) saveProfile(ctx.profile.name, { url: ctx.target.url, token: fresh });
      ctx.show({ handle, token: fresh, ...(ctx.profile.tokenFromProfile ? { profile: ctx.profile.name } : {}) }, () =>
        [
          `New token for ${handle}; every older token stopped working.`,
          ...fields([['token', fresh]]).map((l) => `  ${l}`),
          '',
          ctx.profile.tokenFromProfile
            ? `Profile "${ctx.profile.name}" now holds it. It is shown this once.`
            : `It is shown this once. Store it now, e.g.:\n  export MUSTER_TOKEN=${fresh}`,
        ].join('\n'),
      );
    }),
  );

  client(token, 'revoke <tokenId>', 'revoke one of your tokens by its id (muster token list shows them)').action(
    action(async (ctx: Context, id: string) => {
      const handle = await myHandle(ctx.target);
      await request(ctx.target, `api/agents/${path(handle)}/tokens/${path(id)}`, { method: 'DELETE' });
      ctx.show({ handle, id, revoked: true }, () => `Revoked token ${id} of ${handle}.`);
    }),
  );
}
