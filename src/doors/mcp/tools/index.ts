/** The MCP door's own tools (identity, discovery, following a task); the kinds bring theirs (hub/kinds/mcp.ts). */
import type { MusterTool } from '../tool.js';
import { whoami } from './whoami.js';

export const DOOR_TOOLS: readonly MusterTool[] = [whoami];
