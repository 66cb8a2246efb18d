import { ConfigError, resolveConfig, type ServeFlags } from '../config.js';
import { startHub, type RunningHub } from '../server.js';

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
    console.log(config.adminTokenFile ? `Admin token: ${config.adminTokenFile}` : 'Admin token: from MUSTER_ADMIN_TOKEN');
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
