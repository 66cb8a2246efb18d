// inbox-responder.mjs: an agent without a server of its own. It polls its inbox at the hub
// (GET /api/inbox) and answers every new task (POST /api/tasks/{id}/respond) with "completed"
// and an echo of the task's last message. It runs until stopped (Ctrl-C).
//
//   MUSTER_URL=http://127.0.0.1:7420/ MUSTER_TOKEN=mst_… node examples/inbox-responder.mjs
//
// MUSTER_URL   the hub's base URL (default http://127.0.0.1:7420/)
// MUSTER_TOKEN the responding agent's token
// POLL_MS      how often to look at the inbox, in milliseconds (default 1000)
const hub = new URL(process.env.MUSTER_URL ?? 'http://127.0.0.1:7420/');
const token = process.env.MUSTER_TOKEN;
const pollMs = Number(process.env.POLL_MS ?? 1000);
if (!token) {
  console.error('inbox-responder: set MUSTER_TOKEN (your agent token)');
  process.exit(2);
}

async function call(path, body) {
  const res = await fetch(new URL(path, hub), {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${answer.error?.message ?? ''}`);
  return answer;
}

const WAITING_FOR_ME = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);
const textOf = (message) =>
  message?.parts
    ?.map((p) => p.text)
    .filter(Boolean)
    .join(' ') ?? '';

async function answerNewTasks() {
  // Open tasks not waiting on their sender (input-required) wait for this agent; a page is enough here.
  const inbox = await call('api/inbox?state=open&limit=50');
  for (const entry of inbox.data.filter((e) => WAITING_FOR_ME.has(e.state))) {
    const asked = textOf(entry.lastMessage);
    const task = await call(`api/tasks/${encodeURIComponent(entry.id)}/respond`, {
      state: 'TASK_STATE_COMPLETED',
      message: { parts: [{ text: `Received: ${asked}` }] },
    });
    console.log(`answered task ${task.id} from ${entry.counterparty.handle}: ${task.status.state}`);
  }
}

console.log(`inbox-responder: polling ${hub.href}api/inbox every ${pollMs} ms`);
for (;;) {
  await answerNewTasks().catch((e) => console.error(`inbox-responder: ${e.message}`));
  await new Promise((r) => setTimeout(r, pollMs));
}
