/**
 * `muster demo`: every way of working, end to end, on a hub of its own (or an existing one with
 * --url), as a short transcript of who did what and what the hub answered.
 */
import { Option, type Command } from 'commander';
import { printError } from '../../client/errors.js';
import { normalizeBase } from '../../client/http.js';
import { wholeNumber } from '../../client/paging.js';
import type { KindClient } from '../../kinds/kind-client.js';
import { AGENT_NAMES, registerCast, type Demo } from '../../client/demo/cast.js';
import { startLocalHub, type LocalHub } from './local-hub.js';
import type { DemoStep } from '../../client/demo/step.js';
import { Transcript } from '../../client/demo/transcript.js';

interface DemoOptions {
  url?: string;
  adminToken?: string;
  keep?: boolean;
  reviewDeadline: number;
}

/** On its own hub the review's deadline is this near, so the demo sees the evaluation in seconds. */
const LOCAL_REVIEW_DEADLINE_S = 3;

/** `muster demo`, running the demo step of each kind in `kinds` that brings one, in their order. */
export function demoCommand(program: Command, kinds: readonly KindClient[]): void {
  const steps = kinds.flatMap((k): DemoStep[] => (k.demo ? [k.demo] : []));
  program
    .command('demo')
    .description('run every way of working through a hub and print what each agent did (a temporary hub unless --url)')
    .option('--url <base>', 'use this running hub instead of a temporary one (it keeps the demo agents)')
    .addOption(
      new Option('--admin-token <token>', "that hub's admin token, to open a call and to register in admin mode").env(
        'MUSTER_ADMIN_TOKEN',
      ),
    )
    .option(
      '--review-deadline <seconds>',
      "how far away the review's deadline is set on a hub given with --url",
      wholeNumber(1),
      5,
    )
    .option(
      '--keep',
      "leave the temporary hub running and print how to look around (stop it with Ctrl-C); with --url, print the demo agents' tokens",
    )
    .action(async (options: DemoOptions) => {
      try {
        await runDemo(options, steps);
      } catch (error) {
        printError(error, false);
      }
    });
}

async function runDemo(options: DemoOptions, steps: readonly DemoStep[]): Promise<void> {
  const transcript = new Transcript();
  const local = options.url === undefined ? await startLocalHub() : undefined;
  try {
    const url = local?.url ?? normalizeBase(options.url!);
    const adminToken = local?.adminToken ?? (options.adminToken || undefined);
    transcript.note(local ? `Muster demo on a temporary hub at ${url}` : `Muster demo on the hub at ${url}`);
    const agents = await registerCast(url, adminToken, local !== undefined, transcript);
    const demo: Demo = {
      url,
      adminToken,
      agents,
      transcript,
      reviewDeadlineS: local ? LOCAL_REVIEW_DEADLINE_S : options.reviewDeadline,
      made: [],
    };
    for (const step of steps) {
      transcript.section(step.title);
      await step.run(demo);
    }
    transcript.section('Done');
    if (options.keep) lookAround(demo, local);
    else if (!local) transcript.note('The demo agents stay registered on that hub (--keep prints their tokens).');
    if (local && options.keep)
      await untilStopped('The hub keeps running; press Ctrl-C to stop it and remove its database.', transcript);
  } finally {
    await local?.stop();
  }
  if (local) transcript.note('The temporary hub is stopped and its database removed.');
}

/** How to look around: the agents' tokens (only here, where the user asked to keep them) and a few commands. */
function lookAround(demo: Demo, local: LocalHub | undefined): void {
  const t = demo.transcript;
  t.note(`The hub: ${demo.url}`);
  if (local) t.note(`Its admin token is in ${local.adminTokenFile}`);
  t.note("The demo agents' tokens:");
  for (const name of AGENT_NAMES) t.note(`  ${demo.agents[name].handle.padEnd(12)} ${demo.agents[name].token}`);
  const { alice, bob } = demo.agents;
  t.note('Look around, for example:');
  t.note(`  export MUSTER_URL=${demo.url}`);
  t.note(`  MUSTER_TOKEN=${alice.token} muster sent --state all`);
  t.note(`  MUSTER_TOKEN=${bob.token} muster inbox --state all`);
  for (const { what, id } of demo.made) t.note(`  MUSTER_TOKEN=${alice.token} muster get ${id}   # ${what}`);
}

/** --keep: waits for SIGINT or SIGTERM. */
function untilStopped(message: string, transcript: Transcript): Promise<void> {
  transcript.note(message);
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
