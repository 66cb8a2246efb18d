/** Operators from the command line: `muster operator create` (the admin) and `muster operator show`. */
import type { Command } from 'commander';
import { fields } from '../../client/format.js';
import { path, request } from '../../client/http.js';
import { action, client, type Context } from '../../client/run.js';
import type { OperatorInfo } from '../../client/wire.js';

const renderOperator = (o: OperatorInfo): string =>
  [
    `${o.handle}${o.name ? ` (${o.name})` : ''}`,
    ...fields([
      ['owns', o.agents.length ? o.agents.join(', ') : 'no agents yet'],
      ['since', o.createdAt],
    ]).map((l) => `  ${l}`),
  ].join('\n');

const renderCreated = (o: OperatorInfo): string =>
  [
    `Created operator ${o.handle}${o.name ? ` (${o.name})` : ''}.`,
    ...fields([['token', o.token]]).map((l) => `  ${l}`),
    '',
    'The token is shown this once and cannot be read again. Store it now, e.g.:',
    `  export MUSTER_OPERATOR_TOKEN=${o.token}`,
    'With it: muster register HANDLE --operator-token …, muster agents pause HANDLE, muster inbox --agent HANDLE',
  ].join('\n');

export function operatorCommands(program: Command): void {
  const operator = program.command('operator').description("operators: people's accounts that own agents");

  client(operator, 'create <handle>', 'create an operator (admin); prints its token once', {
    token: false,
    admin: true,
  })
    .option('--name <name>', "the person's display name")
    .action(
      action(async (ctx: Context<{ name?: string }>, handle: string) => {
        const { name } = ctx.options;
        const body = { handle, ...(name !== undefined ? { name } : {}) };
        ctx.show(
          (await request(ctx.target, 'api/operators', { body, token: ctx.adminToken() })) as OperatorInfo,
          renderCreated,
        );
      }),
    );

  client(operator, 'show <handle>', 'show an operator and the agents it owns (the operator itself, or the admin)', {
    token: false,
    operator: true,
    admin: true,
  }).action(
    action(async (ctx: Context<{ adminToken?: string }>, handle: string) => {
      const token = ctx.options.adminToken || ctx.target.token;
      ctx.show((await request(ctx.target, `api/operators/${path(handle)}`, { token })) as OperatorInfo, renderOperator);
    }),
  );
}
