/** The direct kind's client half: its CLI part and its MCP tools (src/kinds/kind-client.ts). */
import type { KindClient } from '../../kind-client.js';
import { directCli } from './cli.js';
import { directTools } from './mcp.js';

export const directClient: KindClient = { name: 'direct', ...directCli, tools: directTools };
