// The floor for the benchmark: bare node:http answering every POST with a fixed JSON body, the
// size and shape of Muster's GetTask answer for the bench's task (470 bytes). No routing, no
// parsing, no store: what the machine and Node's HTTP stack cost per request, so Muster/bare says
// how much of the machine's limit Muster reaches.
//
//   node bench/bare-server.mjs [port]     (port 0 or none: a free port)
//
// Prints "ready <port>" on stdout once listening on 127.0.0.1. A GET answers 200 with no body
// (the bench's readiness check).
import http from 'node:http';

const port = Number(process.argv[2] ?? 0);
const id = '01a24857-4b7a-76bd-a4d7-b44de787810e';
const contextId = '01a24857-4b7a-76bd-a4d7-b12ad7605522';
const task = {
  id,
  contextId,
  status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-12-05T22:33:30.234Z' },
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }], taskId: id, contextId }],
  metadata: { muster: { kind: 'direct', from: 'bench-sender', to: 'bench-target' } },
};
const answer = (result) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
const GET_TASK = answer(task);
// The bench's GetTask sample first creates its task with SendMessage and checks it got a task back,
// so a SendMessage gets the same task wrapped as SendMessage answers it; a substring test picks it
// without parsing the body.
const SEND_MESSAGE = answer({ task });

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') return res.end();
  let sendMessage = false;
  req.on('data', (chunk) => (sendMessage ||= chunk.includes('"SendMessage"')));
  req.on('end', () => {
    const body = sendMessage ? SEND_MESSAGE : GET_TASK;
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000; // as Muster's (Fastify's) keep-alive, so neither closes the bench's connections
server.listen(port, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
