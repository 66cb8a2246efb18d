#!/usr/bin/env -S node --max-semi-space-size=32
// A larger young generation: a hub allocates briefly for every request, and with V8's default
// 16 MiB semi-space it spent an eighth of its time collecting (bench/run.mjs SendMessage +14 %).
import { KIND_CLIENTS } from '../kinds/client.js';
import { runProgram } from '../client/run.js';
import { buildProgram } from './program.js';

// Output piped into a reader that stops early (`muster … | head`) ends the command quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});

const program = await buildProgram(KIND_CLIENTS);

runProgram(program).catch((e: unknown) => {
  console.error(`muster: ${(e as Error).message}`);
  process.exit(1);
});
