/** The demo's own hub: in this process, on a fresh SQLite file in a temporary folder, on a free loopback port. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubSettings } from '../../config/index.js';

export interface LocalHub {
  url: string;
  adminToken: string;
  /** The file the hub wrote its admin token to. */
  adminTokenFile: string;
  /** Stops the hub and removes its folder, database and admin token included. */
  stop(): Promise<void>;
}

/** Review deadlines may be this near on the demo's hub, so the demo can wait for an evaluation. */
export const DEMO_REVIEW_MIN_DEADLINE_S = 1;

export async function startLocalHub(): Promise<LocalHub> {
  const dir = mkdtempSync(join(tmpdir(), 'muster-demo-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // Only the demo's own settings: the caller's MUSTER_* variables are for their own hub.
    // The transcript is the demo's output; the hub's own log lines would only interleave with it.
    // Loaded here, not at the top: every CLI command loads this module, and most never start a hub.
    const [{ startHub }, { silentLogger }, { KIND_MODULES }] = await Promise.all([
      import('../../server.js'),
      import('../../observability/logger.js'),
      import('../../kinds/server.js'),
    ]);
    const config = hubSettings(KIND_MODULES).resolveConfig(
      { host: '127.0.0.1', port: '0', db: `sqlite:${join(dir, 'muster.db')}` },
      { MUSTER_REVIEW_MIN_DEADLINE_S: String(DEMO_REVIEW_MIN_DEADLINE_S) },
    );
    const hub = await startHub(config, { logger: silentLogger() });
    return {
      url: hub.url,
      adminToken: readFileSync(config.adminTokenFile, 'utf8').trim(),
      adminTokenFile: config.adminTokenFile,
      stop: async () => {
        await hub.close();
        remove();
      },
    };
  } catch (e) {
    remove();
    throw e;
  }
}
