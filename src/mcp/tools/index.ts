/** The MCP door's own tools (identity, discovery, following a task); the kinds bring theirs (their client halves, src/kinds/client.ts). */
import type { MusterTool } from '../tool.js';
import { card, directorySearch } from './directory.js';
import { waitTask } from './wait-task.js';
import { whoami } from './whoami.js';

export const DOOR_TOOLS: readonly MusterTool[] = [whoami, directorySearch, card, waitTask];
