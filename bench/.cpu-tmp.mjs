// CPU microseconds the hub process spends per SendMessage (stable under noisy neighbours).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
const root = process.argv[2], port = Number(process.argv[3] ?? 7490), N = Number(process.argv[4] ?? 30000), method = process.argv[5] ?? 'SendMessage';
rmSync(`/tmp/cpu/db-${port}`, { recursive: true, force: true });
const child = spawn(process.execPath, [`${root}/dist/cli/main.js`, 'serve', '--port', String(port), '--db', `sqlite:/tmp/cpu/db-${port}/x.db`], { env: { ...process.env, MUSTER_ADMIN_TOKEN: 'bench-admin', MUSTER_RATE_LIMITS: 'off' }, stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) { try { await fetch(`${base}/health`); break; } catch { await new Promise((r) => setTimeout(r, 100)); } }
const reg = async (h) => (await (await fetch(`${base}/api/agents`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench-admin' }, body: JSON.stringify({ handle: h }) })).json());
const s = await reg('bench-sender'); await reg('bench-target');
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${s.token}` };
const url = `${base}/agents/bench-target/`;
let body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-[<id>]', role: 'ROLE_USER', parts: [{ text: 'hello' }] } } });
if (method === 'GetTask') {
  const t = await (await fetch(url, { method: 'POST', headers, body: body.replace('[<id>]', 'x') })).json();
  body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: t.result.task.id } });
}
const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; }; // ticks (10 ms) -> µs
await autocannon({ url, method: 'POST', headers, body, idReplacement: true, connections: 50, amount: 5000 }); // warm-up
const before = cpu(); const t0 = Date.now();
const r = await autocannon({ url, method: 'POST', headers, body, idReplacement: true, connections: 50, amount: N });
const used = cpu() - before; const wall = Date.now() - t0;
console.log(`${method}: ${(used / N).toFixed(1)} µs CPU/request in the hub; ${Math.round(N / wall * 1000)} req/s; errors ${r.errors + r.non2xx}`);
child.kill('SIGINT');
