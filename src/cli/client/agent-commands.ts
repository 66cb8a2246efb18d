/** Agents on the hub (list, show) and your own endpoint: proving control of it, and forwarding to it. */
import type { Command } from 'commander';
import { myHandle } from './account-commands.js';
import { CliError, EXIT } from './errors.js';
import { fields, renderAgents, renderProfile } from './format.js';
import { path, request } from './http.js';
import { nextCommand, pageOf, pageOptions } from './paging.js';
import { action, client, type Context } from './run.js';
import type { Forwarding, Profile, RestPage } from './wire.js';

const renderForwarding = (f: Forwarding): string =>
  fields([
    ['forwarding', f.enabled ? 'on' : 'off'],
    ['endpoint', typeof f['endpoint'] === 'string' ? f['endpoint'] : '(none)'],
    ['verified', typeof f['verifiedAt'] === 'string' ? f['verifiedAt'] : 'not yet (muster endpoint challenge, then muster endpoint verify)'],
  ]).join('\n');

export function agentCommands(program: Command): void {
  const agents = program.command('agents').description('the agents on the hub: public profiles');

  pageOptions(client(agents, 'list', 'list the agents on the hub, in registration order', { token: false }), 'agents').action(
    action(async (ctx: Context<{ limit?: number; cursor?: string }>) => {
      const { limit, cursor } = ctx.options;
      const page = pageOf((await request(ctx.target, 'api/agents', { query: { limit, cursor } })) as RestPage<Profile>);
      ctx.show(page, (p) => renderAgents(p, nextCommand(['agents', 'list', ...(limit ? ['--limit', String(limit)] : [])], p)));
    }),
  );

  client(agents, 'show <handle>', "show an agent's public profile", { token: false }).action(
    action(async (ctx: Context, handle: string) => {
      ctx.show((await request(ctx.target, `api/agents/${path(handle)}`)) as Profile, renderProfile);
    }),
  );

  const endpoint = program.command('endpoint').description("prove you control your agent's own A2A endpoint");

  client(endpoint, 'challenge', 'ask for a challenge to serve at your endpoint (valid 15 minutes)').action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const answer = (await request(ctx.target, `api/agents/${path(handle)}/endpoint/challenge`, { method: 'POST' })) as { challenge: string; url: string; expiresAt: string };
      ctx.show(answer, (c) =>
        [
          ...fields([
            ['challenge', c.challenge],
            ['serve it at', c.url],
            ['expires', c.expiresAt],
          ]),
          '',
          'Serve the challenge as the text body (status 200) at that URL, then run: muster endpoint verify',
        ].join('\n'),
      );
    }),
  );

  client(endpoint, 'verify', 'have the hub fetch the challenge from your endpoint and read its agent card').action(
    action(async (ctx: Context) => {
      const handle = await myHandle(ctx.target);
      const state = (await request(ctx.target, `api/agents/${path(handle)}/endpoint/verify`, { method: 'POST' })) as Forwarding;
      ctx.show(state, (f) => `Verified.\n${renderForwarding(f)}${f.enabled ? '' : '\n\nSwitch forwarding on with: muster forwarding on'}`);
    }),
  );

  client(program, 'forwarding [onOrOff]', 'show forwarding of new direct tasks to your verified endpoint, or switch it on or off').action(
    action(async (ctx: Context, onOrOff: string | undefined) => {
      if (onOrOff !== undefined && onOrOff !== 'on' && onOrOff !== 'off') {
        throw new CliError('USAGE', `forwarding takes on or off, not '${onOrOff}'`, EXIT.usage, 'muster forwarding on, muster forwarding off, or muster forwarding to see it');
      }
      const handle = await myHandle(ctx.target);
      const route = `api/agents/${path(handle)}/forwarding`;
      const state = (await request(ctx.target, route, onOrOff ? { method: 'PUT', body: { enabled: onOrOff === 'on' } } : {})) as Forwarding;
      ctx.show(state, renderForwarding);
    }),
  );
}
