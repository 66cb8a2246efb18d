/**
 * Each kind's MCP tools, from its own folder (hub/kinds/<kind>/mcp.ts). Like KIND_CLIS, kept apart
 * from KIND_MODULES so `muster mcp` loads none of the hub: the tools import only the client.
 * A new kind adds its entry here; the MCP door lists them in this order, after its own.
 */
import type { MusterTool } from '../mcp/tool.js';
import { callTools } from './call/client/mcp.js';
import { directTools } from './direct/client/mcp.js';
import { intentTools } from './intent/client/mcp.js';
import { memoryTools } from './memory/client/mcp.js';
import { reviewTools } from './review/client/mcp.js';

export const KIND_TOOLS: readonly MusterTool[] = [...directTools, ...reviewTools, ...callTools, ...intentTools, ...memoryTools];
