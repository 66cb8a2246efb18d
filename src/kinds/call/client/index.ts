/** The call kind's client half: its CLI part and its MCP tools (src/kinds/kind-client.ts). */
import type { KindClient } from '../../kind-client.js';
import { callCli } from './cli.js';
import { callTools } from './mcp.js';

export const callClient: KindClient = { name: 'call', ...callCli, tools: callTools };
