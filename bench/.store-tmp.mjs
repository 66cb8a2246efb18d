import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { v7 } from 'uuid';
import { rmSync } from 'node:fs';
rmSync('/tmp/cpu/st', { recursive: true, force: true });
const store = openSqliteStore('/tmp/cpu/st/s.db');
const mk = (i) => { const id = v7(); const now = Date.now(); const m = { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'hello' }], taskId: id, contextId: id };
  return { record: { id, kind: 'direct', contextId: id, sender: 'bench-sender', target: 'bench-target', visibility: 'participants', state: 'TASK_STATE_SUBMITTED', statusAt: now, createdAt: now, updatedAt: now, messageCount: 1, artifactCount: 0, version: 1, lastSeq: 1 },
    newMessages: [m], newArtifacts: [], events: [{ task: { id, contextId: id, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(now).toISOString() }, metadata: { muster: { kind: 'direct', from: 'bench-sender', to: 'bench-target' } } } }],
    receipt: { scope: 'message:bench-sender', key: `m-${i}`, fingerprint: 'x'.repeat(43), result: { taskId: id } } }; };
const N = 50000, B = Number(process.env.B ?? 25);
for (let i = 0; i < 5000; i += B) await Promise.all(Array.from({ length: B }, (_, k) => store.createTask(mk(1e9 + i + k))));
const c0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < N; i += B) await Promise.all(Array.from({ length: B }, (_, k) => store.createTask(mk(i + k))));
const c = process.cpuUsage(c0); const wall = performance.now() - t0;
console.log(`batch ${B}: ${((c.user + c.system) / N).toFixed(1)} µs CPU per create (${Math.round(N / wall * 1000)}/s)`);
await store.close();
