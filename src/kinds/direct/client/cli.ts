/**
 * Direct tasks in the CLI. Their commands are the core client's (send, get, inbox, respond,
 * cancel: src/cli/commands/commands.ts), which every kind's tasks use too; the kind brings its demo step.
 */
import type { KindCli } from '../../kind-client.js';
import { directTask } from './demo.js';

export const directCli: KindCli = { demo: directTask };
