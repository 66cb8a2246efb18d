/**
 * The client halves of the kinds (src/kinds/<kind>/client/): the CLI, `muster demo` and the MCP
 * tools are built from this list. Kept apart from KIND_MODULES (server.ts) so the client loads
 * none of the hub. A new kind adds its half here and its module in server.ts. The order is the
 * order of `muster demo`'s steps, of the commands in `muster --help` and of the MCP tools.
 */
import type { KindClient } from './kind-client.js';
import { callClient } from './call/client/index.js';
import { directClient } from './direct/client/index.js';
import { intentClient } from './intent/client/index.js';
import { memoryClient } from './memory/client/index.js';
import { reviewClient } from './review/client/index.js';

export const KIND_CLIENTS: readonly KindClient[] = [directClient, reviewClient, callClient, intentClient, memoryClient];
