/**
 * Each kind's part of the CLI (its commands, its section of `muster get`, its demo step), from its
 * own folder. Kept apart from KIND_MODULES (index.ts) so the client CLI loads none of the hub:
 * these import only the CLI's client and the demo's helpers. A new kind adds its entry here.
 * The order is the order of `muster demo`'s steps and of the commands in `muster --help`.
 */
import type { KindCli } from '../client/kind-client.js';
import { callCli } from './call/client/cli.js';
import { directCli } from './direct/client/cli.js';
import { intentCli } from './intent/client/cli.js';
import { memoryCli } from './memory/client/cli.js';
import { reviewCli } from './review/client/cli.js';

export const KIND_CLIS: readonly KindCli[] = [directCli, reviewCli, callCli, intentCli, memoryCli];
