/** The hub's signing keys from the command line: `muster keys rotate` (the admin). */
import type { Command } from 'commander';
import { fields, table } from '../../client/format.js';
import { request } from '../../client/http.js';
import { action, client, type Context } from '../../client/run.js';

/** POST /api/keys/rotate's answer (docs/rest-api.md). */
interface Rotation {
  kid: string;
  replaced: string;
  keys: { kid: string; signing: boolean; createdAt: string; retiredAt?: string; publishedUntil?: string }[];
}

const renderRotation = (r: Rotation): string =>
  [
    ...fields([
      ['signing key', r.kid],
      ['replaced', r.replaced],
    ]),
    '',
    ...table([
      ['KID', 'CREATED', 'PUBLISHED UNTIL'],
      ...r.keys.map((k) => [k.kid, k.createdAt, k.signing ? '(signing now)' : (k.publishedUntil ?? '')]),
    ]),
  ].join('\n');

export function keyCommands(program: Command): void {
  const keys = program.command('keys').description("the hub's signing keys (admin)");

  client(keys, 'rotate', 'make a new signing key; older keys stay in the JWKS for keyGraceDays', {
    token: false,
    admin: true,
  }).action(
    action(async (ctx: Context) => {
      const answer = (await request(ctx.target, 'api/keys/rotate', {
        method: 'POST',
        body: {},
        token: ctx.adminToken(),
      })) as Rotation;
      ctx.show(answer, renderRotation);
    }),
  );
}
