/** The memory kind's client half: its CLI part and its MCP tools (src/kinds/kind-client.ts). */
import type { KindClient } from '../../kind-client.js';
import { memoryCli } from './cli.js';
import { memoryTools } from './mcp.js';

export const memoryClient: KindClient = { name: 'memory', ...memoryCli, tools: memoryTools };
