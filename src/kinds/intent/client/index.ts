/** The intent kind's client half: its CLI part and its MCP tools (src/kinds/kind-client.ts). */
import type { KindClient } from '../../kind-client.js';
import { intentCli } from './cli.js';
import { intentTools } from './mcp.js';

export const intentClient: KindClient = { name: 'intent', ...intentCli, tools: intentTools };
