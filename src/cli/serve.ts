import { ConfigError, resolveConfig, type ServeFlags } from '../config.js';
import { startHub } from '../server.js';

/** `muster serve`: start the hub, print where it is, stop cleanly on SIGINT/SIGTERM. */
export async function serve(flags: ServeFlags): Promise<void> {
  let hub;
  try {
    const config = resolveConfig(flags, process.env);
    hub = await startHub(config);
    console.log(`Muster is listening on ${hub.url}`);
    console.log(config.adminTokenFile ? `Admin token: ${config.adminTokenFile}` : 'Admin token: from MUSTER_ADMIN_TOKEN');
    console.log(`Agents' bases: ${hub.url}agents/{handle}/  (register with POST ${hub.url}api/agents)`);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`muster: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const running = hub;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Muster: ${signal}, stopping`);
    running.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`muster: error while stopping: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
