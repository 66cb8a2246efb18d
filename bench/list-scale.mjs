// How ListTasks and inbox pages behave at a million tasks: fills a SQLite store directly (no
// HTTP), then times list pages through the hub's task service, the path every door takes.
//
//   node bench/list-scale.mjs            (LIST_TASKS=1000000; needs dist/: npm run build)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { v7 as uuidv7 } from 'uuid';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { createHub } from '../dist/hub/hub.js';
import { KIND_MODULES } from '../dist/kinds/server.js';
import { hashToken } from '../dist/identity/tokens.js';

const TOTAL = Number(process.env.LIST_TASKS ?? 1_000_000);
const AGENTS = 1000;
const BIG = Math.floor(TOTAL / 10); // one agent holds a tenth of all tasks in its inbox

const dir = mkdtempSync(path.join(os.tmpdir(), 'muster-list-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = openSqliteStore(path.join(dir, 'list.db'));
const hub = createHub(store, {
  modules: KIND_MODULES,
  adminTokenHash: hashToken('x'),
  rateLimits: false,
  targets: { allowPrivate: false },
  deliveriesQueued: () => {},
});

const handle = (i) => `agent-${i}`;
function write(i, now) {
  const target = i < BIG ? handle(0) : handle(1 + (i % (AGENTS - 1)));
  const sender = handle(1 + ((i * 7) % (AGENTS - 1)));
  const id = uuidv7();
  const message = {
    messageId: `m-${i}`,
    role: 'ROLE_USER',
    parts: [{ text: 'hello' }],
    taskId: id,
    contextId: `ctx-${i % 5000}`,
  };
  return {
    record: {
      id,
      kind: 'direct',
      contextId: `ctx-${i % 5000}`,
      sender,
      target,
      visibility: 'participants',
      state: i % 3 === 0 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_SUBMITTED',
      statusAt: now,
      createdAt: now,
      updatedAt: now,
      messageCount: 1,
      artifactCount: 0,
      version: 1,
      lastSeq: 1,
    },
    newMessages: [message],
    newArtifacts: [],
    events: [{ task: { id, contextId: message.contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } } }],
  };
}

const started = performance.now();
const base = Date.now() - TOTAL;
for (let i = 0; i < TOTAL; i += 1000) {
  await Promise.all(
    Array.from({ length: Math.min(1000, TOTAL - i) }, (_, k) => store.createTask(write(i + k, base + i + k))),
  );
}
console.log(
  `filled ${TOTAL} tasks (${AGENTS} agents; ${handle(0)} holds ${BIG} in its inbox) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

async function time(label, run, times = 20) {
  await run();
  const samples = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await run();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(58)} p50 ${samples[Math.floor(times / 2)].toFixed(2)} ms  max ${samples[times - 1].toFixed(2)} ms`,
  );
}

const at = (caller, door) => ({
  caller: { kind: 'agent', handle: caller },
  door: door ? { kind: 'agent', handle: door } : { kind: 'hub' },
});
let token = '';
await time(`ListTasks, ${handle(0)}'s own inbox (${BIG} tasks), page 1 of 50`, async () => {
  const page = await hub.tasks.list(at(handle(0), handle(0)), { pageSize: 50 });
  token = page.nextPageToken;
});
await time(`ListTasks, the same inbox, a later page (keyset token)`, () =>
  hub.tasks.list(at(handle(0), handle(0)), { pageSize: 50, pageToken: token }),
);
await time(`ListTasks, the same inbox, status filter`, () =>
  hub.tasks.list(at(handle(0), handle(0)), { pageSize: 50, status: 'TASK_STATE_COMPLETED' }),
);
await time(`ListTasks, an ordinary agent's inbox (~${Math.round((TOTAL - BIG) / (AGENTS - 1))} tasks)`, () =>
  hub.tasks.list(at(handle(5), handle(5)), { pageSize: 50 }),
);
await time(`ListTasks at the hub base: all one agent sent or received`, () =>
  hub.tasks.list(at(handle(5)), { pageSize: 50 }),
);
await time(`ListTasks at another agent's base: the tasks between two agents`, () =>
  hub.tasks.list(at(handle(8), handle(0)), { pageSize: 50 }),
);
await time(`ListTasks with a contextId filter`, () =>
  hub.tasks.list(at(handle(5)), { pageSize: 50, contextId: 'ctx-42' }),
);
await time(`REST inbox page (open tasks), ${handle(0)}`, () =>
  hub.mailboxes.page({ kind: 'agent', handle: handle(0) }, 'inbox', { limit: 20 }),
);
await store.close();
