// The servers a bench loads: Muster hubs (`dist/cli/main.js serve`) and the SDK reference server,
// each a child process, and agents registered on a hub.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, ROOT, startChild } from './processes.mjs';

const MUSTER_ROOT = process.env.BENCH_MUSTER_ROOT ?? ROOT;
export const ADMIN_TOKEN = 'bench-admin';
const A2A_HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

// A started server is { urls, headers, sendConfiguration?, pids, stop }: its JSON-RPC
// endpoint(s) (one per process), the headers every request carries and its processes.

/** bench/reference-server.mjs; with `pgUrl` its task store is the SDK's DatabaseTaskStore there. */
export async function startReference({ name = 'reference', pgUrl } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startChild(
    name,
    ['bench/reference-server.mjs', String(port), ...(pgUrl ? ['--pg', pgUrl] : [])],
    {},
    `${base}/.well-known/agent-card.json`,
  );
  // returnImmediately: answer after the first (SUBMITTED task) event, like Muster.
  return {
    urls: [`${base}/a2a/jsonrpc`],
    headers: A2A_HEADERS,
    sendConfiguration: { returnImmediately: true },
    pids: [child.pid],
    stop: child.stop,
  };
}

/** The node flags on the first line of Muster's command (`#!/usr/bin/env -S node …`), so a hub runs as `muster serve` does. */
export function binNodeFlags(main) {
  const first = readFileSync(main, 'utf8').split('\n', 1)[0];
  const flags = /^#!\/usr\/bin\/env -S node(.*)$/.exec(first)?.[1];
  return flags ? flags.trim().split(/\s+/).filter(Boolean) : [];
}

/**
 * `processes` Muster hubs (`<root>/dist/cli/main.js serve --db <db>`, root BENCH_MUSTER_ROOT or this clone), started
 * in turn on one database, MUSTER_RATE_LIMITS=off, request lines off; their bases have no trailing slash.
 */
export async function startHubs({ name = 'muster', db, processes = 1, nodeArgs = [], root = MUSTER_ROOT }) {
  const main = path.join(root, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error(`${main} not found: run "npm run build" first (or use --only reference)`);
  const asInstalled = [...binNodeFlags(main), ...nodeArgs];
  const started = [];
  const stop = () => Promise.all(started.map((c) => c.stop()));
  try {
    const bases = [];
    for (let i = 0; i < processes; i++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      started.push(
        await startChild(
          processes > 1 ? `${name}-${i + 1}` : name,
          [...asInstalled, main, 'serve', '--port', String(port), '--db', db],
          { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_RATE_LIMITS: 'off', MUSTER_LOG_LEVEL: 'warn' },
          `${base}/health`,
        ),
      );
      bases.push(base);
    }
    return { bases, pids: started.map((c) => c.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Registers an agent through `base` with the admin token; answers the registration (with its token). */
export async function registerAgent(base, handle) {
  const res = await fetch(`${base}/api/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ handle }),
  });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/agents ${handle}: HTTP ${res.status} ${body}`);
  return JSON.parse(body);
}

/** Muster hubs as a bench server: bench-sender sends to bench-target, through every hub. */
export async function startMuster(options) {
  const hubs = await startHubs(options);
  try {
    const sender = await registerAgent(hubs.bases[0], 'bench-sender');
    await registerAgent(hubs.bases[0], 'bench-target');
    return {
      urls: hubs.bases.map((base) => `${base}/agents/bench-target/`),
      headers: { ...A2A_HEADERS, Authorization: `Bearer ${sender.token}` },
      // Nobody answers bench-target: a blocking send would wait out the hub's wait (A2A 1.0 §3.2.2).
      sendConfiguration: { returnImmediately: true },
      pids: hubs.pids,
      stop: hubs.stop,
    };
  } catch (err) {
    await hubs.stop();
    throw err;
  }
}
