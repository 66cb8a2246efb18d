/**
 * A hub for the CLI tests of spaces and work intents (cli-intents*.test.ts): four agents, the real
 * `muster` process run against the hub, and what a successful run must look like.
 */
import { expect } from 'vitest';
import { runMuster, type Run } from './cli.js';
import { registerAll, rest, startTestHub, type Registered, type TestHub } from './hub.js';

/** Each test runs a dozen or more CLI processes one after another (several seconds each on a busy machine). */
export const CLI_INTENTS_TIMEOUT_MS = 240_000;

export interface CliIntentsHub {
  hub: TestHub;
  owner: Registered;
  orch: Registered;
  worker: Registered;
  other: Registered;
  /** `muster <args>` against the hub, as `token` (none if undefined). */
  muster(args: string[], token?: string): Promise<Run>;
}

export async function startCliIntentsHub(): Promise<CliIntentsHub> {
  const hub = await startTestHub();
  const [owner, orch, worker, other] = await registerAll(hub, 'cli-owner', 'cli-orch', 'cli-worker', 'cli-other');
  return { hub, owner, orch, worker, other, muster: (args, token) => runMuster(hub.url, args, token) };
}

/**
 * The hub with the space cli-links as cli-intents-spaces.test.ts leaves it after `muster space`:
 * owned by cli-owner, orchestrators capped at priority 3, cli-orch its orchestrator, cli-worker
 * and cli-other its workers.
 */
export async function startCliIntentsHubWithLinks(): Promise<CliIntentsHub> {
  const started = await startCliIntentsHub();
  const { hub, owner, orch, worker, other } = started;
  const made = await rest(hub, 'POST', 'api/spaces', {
    token: owner.token,
    body: { name: 'cli-links', description: 'The links service', orchestratorPriority: 3 },
  });
  expect(made.status).toBe(201);
  for (const [member, role] of [
    [orch, 'orchestrator'],
    [worker, 'worker'],
    [other, 'worker'],
  ] as const) {
    const added = await rest(hub, 'PUT', `api/spaces/cli-links/members/${member.handle}`, {
      token: owner.token,
      body: { role },
    });
    expect(added.status).toBe(200);
  }
  return started;
}

/** The one JSON document of a successful --json run. */
export const json = (r: Run) => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

/** A readable success: its stdout. */
export const said = (r: Run): string => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};
