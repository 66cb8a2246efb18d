import { ConfigError, describeDb, hubSettings, type ServeFlags } from '../config/index.js';
import { reason, startHub, type RunningHub } from '../server.js';
import { migrateStore } from '../store/open.js';
import { kindMigrationInputs } from '../hub/kinds.js';
import { DatabaseInUse } from '../store/sqlite/ownership.js';
import { createLogger, endLog, lifecycleLogger, type Logger } from '../observability/logger.js';
import { VERSION } from '../version.js';
import { KIND_MODULES } from '../kinds/server.js';

/** The settings table of the hub this command runs: the core's and each kind's. */
const { resolveConfig, resolveDb } = hubSettings(KIND_MODULES);

/** `muster serve`: start the hub, print where it is, stop cleanly on SIGINT/SIGTERM. */
export async function serve(flags: ServeFlags): Promise<void> {
  // The handlers come first: until a listener exists, a signal kills the process outright, and a
  // supervisor may signal as soon as it reads the start-up lines.
  let hub: RunningHub | undefined;
  let logger: Logger | undefined;
  let stopping: string | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = signal;
    if (hub && logger) shutdown(hub, logger, signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    const config = resolveConfig(flags, process.env);
    const hubLogger = createLogger(config.logLevel);
    hub = await startHub(config, { logger: hubLogger });
    logger = lifecycleLogger(hubLogger);
    logger.info({ url: hub.url, store: describeDb(config.db), version: VERSION }, `Muster is listening on ${hub.url}`);
    if (hub.grpcPort !== undefined)
      logger.info({ grpcPort: hub.grpcPort }, `A2A gRPC binding on ${config.host}:${hub.grpcPort}`);
    logger.info(`Admin token: ${hub.adminToken.where}`);
    logger.info(`Agents' bases: ${hub.url}agents/{handle}/  (register with POST ${hub.url}api/agents)`);
  } catch (e) {
    // A hub that cannot start says why in one plain line on stderr, whatever the log settings.
    if (e instanceof ConfigError) {
      console.error(`muster: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  if (stopping) shutdown(hub, logger, stopping); // a signal that came while the hub was starting
}

/** `muster migrate`: apply pending migrations to the database and exit; one line on success or failure. */
export async function migrate(flags: ServeFlags): Promise<void> {
  try {
    const db = resolveDb(flags, process.env);
    const applied = await migrateStore(db, kindMigrationInputs(KIND_MODULES)).catch((e: unknown) => {
      throw new ConfigError(e instanceof DatabaseInUse ? e.message : `cannot migrate ${describeDb(db)}: ${reason(e)}`);
    });
    console.log(
      applied.length ? `Migrated ${describeDb(db)}: applied ${applied.join(', ')}` : `${describeDb(db)} is up to date`,
    );
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`muster: ${e.message}`);
    process.exit(2);
  }
}

function shutdown(hub: RunningHub, logger: Logger, signal: string): void {
  logger.info({ signal }, `Muster: ${signal}, stopping`);
  const exit = (code: number) => endLog(logger, () => process.exit(code));
  hub.close().then(
    () => {
      logger.info('Muster stopped');
      exit(0);
    },
    (e: unknown) => {
      logger.error({ err: e }, 'error while stopping');
      exit(1);
    },
  );
}
