/**
 * The README's walk, run as a newcomer pastes it: its marked blocks, in order, in one bash
 * session (so variables carry), against a fresh hub started the way the README says, in a
 * temporary folder on a free port. `<!-- walk-hub -->` marks the block that starts the hub,
 * `<!-- walk-file NAME -->` a file the reader saves, `<!-- walk NAME -->` a block to paste;
 * other blocks are illustrations. `muster` is this repository's CLI (helpers/muster-command.ts),
 * standing in for the command `npm link` puts on the reader's PATH;
 * `npx` is refused, so nothing is fetched and nothing stalls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, testDialect, type TestDatabase } from './helpers/database.js';
import { MUSTER_COMMAND } from './helpers/muster-command.js';
import { cleanEnv, eventually, freePort } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The README's port; the walk runs on a free one instead. */
const README_HOST = '127.0.0.1:7420';

interface WalkBlock {
  kind: 'walk-hub' | 'walk-file' | 'walk';
  /** The block's name (`walk`), or the file to save (`walk-file`). */
  name: string;
  body: string;
}

function walkBlocks(readme: string): WalkBlock[] {
  const marked = /<!-- (walk-hub|walk-file|walk)(?: (\S+))? -->\n```\w*\n([\s\S]*?)\n```/g;
  return [...readme.matchAll(marked)].map((m) => ({ kind: m[1] as WalkBlock['kind'], name: m[2] ?? '', body: m[3]! }));
}

/** `muster …` is the repository's CLI; npx would reach for the registry (or stall installing the clone). */
const COMMANDS = `muster() { node ${MUSTER_COMMAND.map((a) => `'${a}'`).join(' ')} "$@"; }
npx() { echo "walk: the walk runs muster, not npx $*" >&2; return 127; }`;

/** How long the whole walk may take before the test ends it and shows how far it got. */
const WALK_LIMIT_MS = 240_000;

/** Signals the process group a child leads (spawned with `detached`); a group already gone is fine. */
function endGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // ESRCH: every process of the group has ended
  }
}

/** One bash script: each block between markers, stopping at the first command that fails. */
function session(blocks: WalkBlock[]): string {
  const steps = blocks.map((b) => `printf '\\n::begin ${b.name}\\n'\n${b.body}\nprintf '\\n::end ${b.name}\\n'`);
  return ['set -euo pipefail', COMMANDS, ...steps].join('\n');
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = walkBlocks(readme);

let db: TestDatabase;
let port: number;
let hub: ChildProcess;
let hubOutput = '';
let transcript = '';
let sessionCode: number | null;

/** What a block printed (stdout and stderr together). */
function outputOf(name: string): string {
  const start = transcript.indexOf(`::begin ${name}\n`);
  const end = transcript.indexOf(`::end ${name}\n`);
  if (start < 0 || end < 0)
    throw new Error(
      `block ${name} did not run to its end:\n${transcript.slice(-4000)}\n--- hub ---\n${hubOutput.slice(-2000)}`,
    );
  return transcript.slice(start, end);
}

beforeAll(async () => {
  db = await testDatabase('walk'); // a temporary folder, and a fresh database when the suite runs on PostgreSQL
  port = await freePort();
  const onPort = (text: string) => text.replaceAll(README_HOST, `127.0.0.1:${port}`);
  // The folder stands in for the clone: the walk's files land there, and its imports resolve.
  symlinkSync(join(root, 'node_modules'), join(db.dir, 'node_modules'));
  const env = cleanEnv({
    XDG_CONFIG_HOME: join(db.dir, 'config'),
    ...(testDialect === 'postgres' ? { MUSTER_DB: db.url } : {}),
  });

  const hubBlock = blocks.find((b) => b.kind === 'walk-hub');
  if (!hubBlock) throw new Error('the README marks no block with <!-- walk-hub -->');
  hub = spawn('bash', ['-c', `${COMMANDS}\n${hubBlock.body}`], {
    cwd: db.dir,
    env: { ...env, MUSTER_PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hub.stdout!.on('data', (d: Buffer) => (hubOutput += d.toString()));
  hub.stderr!.on('data', (d: Buffer) => (hubOutput += d.toString()));
  await eventually(
    `the hub of the walk starts (output: ${hubOutput})`,
    async () => ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok ? true : undefined),
    30_000,
    100,
  );

  for (const file of blocks.filter((b) => b.kind === 'walk-file'))
    writeFileSync(join(db.dir, file.name), onPort(file.body));
  const script = join(db.dir, 'walk.sh');
  writeFileSync(script, onPort(session(blocks.filter((b) => b.kind === 'walk'))));
  // Its own process group, so a block that hangs, and anything a block left in the background, can be ended.
  const walk = spawn('bash', [script], { cwd: db.dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  walk.stdout.on('data', (d: Buffer) => (transcript += d.toString()));
  walk.stderr.on('data', (d: Buffer) => (transcript += d.toString()));
  const hung = setTimeout(() => endGroup(walk), WALK_LIMIT_MS);
  sessionCode = await new Promise<number | null>((resolve) => walk.on('close', resolve));
  clearTimeout(hung);
  endGroup(walk);
}, 300_000);

afterAll(async () => {
  if (hub?.exitCode === null) {
    const exited = new Promise((resolve) => hub.on('exit', resolve));
    endGroup(hub, 'SIGTERM'); // bash and the node it started
    await exited;
  }
  await db?.drop();
});

describe('the README walk', () => {
  it('is written to paste as is: tokens and dates come from commands, each handle is registered once', () => {
    const walk = blocks.map((b) => b.body).join('\n');
    expect(blocks.filter((b) => b.kind === 'walk').map((b) => b.name)).toEqual([
      'setup',
      'register',
      'direct-send',
      'subscribe',
      'direct-ask',
      'direct-reply',
      'direct-complete',
      'direct-get',
      'cli-task',
      'cli-cancel',
      'sdk',
      'review-preview',
      'review',
      'call',
    ]);
    expect(walk).not.toMatch(/mst_/); // no token to copy by hand
    expect(walk).not.toMatch(/\bnpx\b/); // the command starts at once: no npx stall
    expect(walk).not.toMatch(/"deadline": "\d{4}-/); // the deadline is computed
    const handles = [...walk.matchAll(/"handle":"([^"]+)"|muster register (\S+)/g)].map((m) => m[1] ?? m[2]);
    expect(handles).toEqual(['alice', 'bob', 'carol']);
  });

  it('runs every block in order in one shell, each to its end', () => {
    expect(sessionCode, `${transcript.slice(-4000)}\n--- hub ---\n${hubOutput.slice(-2000)}`).toBe(0);
    for (const block of blocks.filter((b) => b.kind === 'walk')) outputOf(block.name);
  });

  it('shows a direct task asked back, answered and completed with curl, and alice’s stream saw every update', () => {
    expect(outputOf('register')).toContain('bob');
    expect(outputOf('direct-send')).toContain('"state":"TASK_STATE_SUBMITTED"');
    expect(outputOf('direct-ask')).toContain('"state":"TASK_STATE_INPUT_REQUIRED"');
    expect(outputOf('direct-reply')).toContain('"state":"TASK_STATE_WORKING"');
    const completed = outputOf('direct-complete');
    expect(completed).toMatch(/"artifactUpdate":\{[^\n]*"name":"notes"/);
    expect(completed).toMatch(/"statusUpdate":\{[^\n]*"state":"TASK_STATE_COMPLETED"/);
    const read = outputOf('direct-get');
    expect(read).toContain('"state":"TASK_STATE_COMPLETED"');
    expect(read).toContain('two typos on page 3');
  });

  it('shows the same with the CLI, a cancel of an open task, and the SDK script getting bob’s answer', () => {
    const task = outputOf('cli-task');
    expect(task).toMatch(/completed/i);
    expect(task).toContain('figure 4 has no axis labels');
    expect(outputOf('cli-cancel')).toMatch(/canceled/i);
    const sdk = outputOf('sdk');
    expect(sdk).toMatch(/sent task \S+: TASK_STATE_SUBMITTED; waiting for bob to answer/);
    expect(sdk).toMatch(/"statusUpdate":\{[^\n]*"state":"TASK_STATE_COMPLETED"/);
    expect(sdk).toContain('Hello alice');
  });

  it('shows a review previewed, posted, contributed to and read in public, and an open call answered and closed', () => {
    expect(outputOf('review-preview')).toMatch(/digest: +sha256:[0-9a-f]{64}/);
    const review = outputOf('review');
    expect(review.match(/sealed/g)?.length).toBeGreaterThanOrEqual(2);
    expect(review).toMatch(/working/i);
    const call = outputOf('call');
    expect(call).toMatch(/state +completed/);
    expect(call).toContain('Delivery guarantees, and how subscribers resume.');
  });
});
