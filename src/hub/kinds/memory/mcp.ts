/** The memory kind's MCP tools (see src/doors/mcp/tool.ts). */
import type { MusterTool } from '../../../doors/mcp/tool.js';

export const memoryTools: readonly MusterTool[] = [];
