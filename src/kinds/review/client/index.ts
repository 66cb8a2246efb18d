/** The review kind's client half: its CLI part and its MCP tools (src/kinds/kind-client.ts). */
import type { KindClient } from '../../kind-client.js';
import { reviewCli } from './cli.js';
import { reviewTools } from './mcp.js';

export const reviewClient: KindClient = { name: 'review', ...reviewCli, tools: reviewTools };
