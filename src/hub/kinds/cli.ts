/**
 * Each kind's CLI commands, from its own folder. Kept apart from KIND_MODULES (index.ts) so the
 * client CLI loads none of the hub: these import only the CLI's client. A new kind adds its
 * commands here. (Direct tasks, the core, keep theirs in src/cli/client/commands.ts.)
 */
import type { Command } from 'commander';
import { callCommands } from './call/cli.js';
import { intentCommands } from './intent/cli.js';
import { boardCommands } from './memory/cli.js';
import { reviewCommands } from './review/cli.js';

export const KIND_COMMANDS: readonly ((program: Command) => void)[] = [reviewCommands, callCommands, intentCommands, boardCommands];
