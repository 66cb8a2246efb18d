import type { Command } from 'commander';
import { ConfigError, parseDb, resolveConfig, type ServeFlags } from '../config.js';
import { reason, startHub, type RunningHub } from '../server.js';
import { describeDb, migrateStore } from '../store/open.js';
import { DatabaseInUse } from '../store/sqlite/ownership.js';

/** The commands that run or prepare a hub on this machine: serve and migrate. */
export function serverCommands(program: Command): void {
  program
    .command('serve')
    .description('run the hub')
    .option('--host <host>', 'address to bind (env MUSTER_HOST)', undefined)
    .option('--port <port>', 'port (env MUSTER_PORT, default 7420)')
    .option('--db <url>', 'sqlite:<file> or postgres://… (env MUSTER_DB, default sqlite:./.muster/muster.db)')
    .option('--public-url <url>', 'the URL clients reach the hub at; required off loopback (env MUSTER_PUBLIC_URL)')
    .option('--registration <mode>', 'open or admin (env MUSTER_REGISTRATION, default open)')
    .action(serve);

  program
    .command('migrate')
    .description("apply the database's pending migrations and exit (serve applies them too, at start)")
    .option('--db <url>', 'sqlite:<file> or postgres://… (env MUSTER_DB, default sqlite:./.muster/muster.db)')
    .action(migrate);
}

/** `muster serve`: start the hub, print where it is, stop cleanly on SIGINT/SIGTERM. */
export async function serve(flags: ServeFlags): Promise<void> {
  // The handlers come first: until a listener exists, a signal kills the process outright, and a
  // supervisor may signal as soon as it reads the start-up lines.
  let hub: RunningHub | undefined;
  let stopping: string | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = signal;
    if (hub) shutdown(hub, signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    const config = resolveConfig(flags, process.env);
    hub = await startHub(config);
    console.log(`Muster is listening on ${hub.url}`);
    console.log(`Admin token: ${hub.adminToken.where}`);
    console.log(`Agents' bases: ${hub.url}agents/{handle}/  (register with POST ${hub.url}api/agents)`);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`muster: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  if (stopping) shutdown(hub, stopping); // a signal that came while the hub was starting
}

/** `muster migrate`: apply pending migrations to the database and exit; one line on success or failure. */
export async function migrate(flags: { db?: string }): Promise<void> {
  try {
    const db = parseDb(flags.db ?? process.env['MUSTER_DB'] ?? 'sqlite:./.muster/muster.db');
    const applied = await migrateStore(db).catch((e: unknown) => {
      throw new ConfigError(e instanceof DatabaseInUse ? e.message : `cannot migrate ${describeDb(db)}: ${reason(e)}`);
    });
    console.log(applied.length ? `Migrated ${describeDb(db)}: applied ${applied.join(', ')}` : `${describeDb(db)} is up to date`);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`muster: ${e.message}`);
    process.exit(2);
  }
}

function shutdown(hub: RunningHub, signal: string): void {
  console.log(`Muster: ${signal}, stopping`);
  hub.close().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(`muster: error while stopping: ${(e as Error).message}`);
      process.exit(1);
    },
  );
}
