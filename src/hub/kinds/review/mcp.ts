/** The review kind's MCP tools (see src/doors/mcp/tool.ts). */
import type { MusterTool } from '../../../doors/mcp/tool.js';

export const reviewTools: readonly MusterTool[] = [];
