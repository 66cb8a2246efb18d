// Reference A2A server for the benchmark: the SDK's own DefaultRequestHandler +
// InMemoryTaskStore behind its express handlers, with an executor that does the
// same work Muster does for SendMessage: store a SUBMITTED task and answer.
//
//   node bench/reference-server.mjs [port] [--pg <url>] [--answer]
//                                   (or PORT=..., REFERENCE_PG_URL=...; port 0 picks a free port)
//
// With --answer the agent answers each task at once: COMPLETED with a message saying "done", as
// the attached agent of bench/relay.mjs does (the direct call that the relay is measured against).
//
// With --pg (or REFERENCE_PG_URL) the task store is the SDK's DatabaseTaskStore on Kysely +
// pg (pool of 10) instead: the tables must exist (node_modules/.bin/a2a-db upgrade --url <url>).
// Prints "ready <port>" on stdout once listening on 127.0.0.1.
// JSON-RPC endpoint: POST /a2a/jsonrpc (needs header "A2A-Version: 1.0").
import { parseArgs } from 'node:util';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const args = parseArgs({ allowPositionals: true, options: { pg: { type: 'string' }, answer: { type: 'boolean' } } });
const port = Number(args.positionals[0] ?? process.env.PORT ?? 0);
const pgUrl = args.values.pg ?? process.env.REFERENCE_PG_URL;
const JSONRPC_PATH = '/a2a/jsonrpc';

// Internal (ts-proto) shape: every field present, numeric enums.
const agentCard = {
  name: 'Bench Reference Agent',
  description: 'SDK reference server for the Muster benchmark',
  version: '0.0.1',
  supportedInterfaces: [
    {
      url: `http://127.0.0.1:${port}${JSONRPC_PATH}`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
  ],
  provider: undefined,
  capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
};

// Publishes the task in SUBMITTED and returns; with configuration.returnImmediately
// the handler answers right after this first event. With --answer it completes the task too.
const done = (taskId, contextId) => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  parts: [{ content: { $case: 'text', value: 'done' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
});
const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    bus.publish(
      AgentEvent.task(
        ctx.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        },
      ),
    );
    if (!args.values.answer) return;
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        metadata: undefined,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          timestamp: new Date().toISOString(),
          message: done(taskId, contextId),
        },
      }),
    );
  },
  async cancelTask() {},
};

/** The task store, and what closes it. */
async function openTaskStore() {
  if (!pgUrl) return { taskStore: new InMemoryTaskStore(), close: async () => {} };
  const [{ Kysely, PostgresDialect }, { default: pg }, { DatabaseTaskStore }] = await Promise.all([
    import('kysely'),
    import('pg'),
    import('@a2a-js/sdk/server/database'),
  ]);
  const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: pgUrl, max: 10 }) }) });
  return { taskStore: new DatabaseTaskStore(db), close: () => db.destroy() };
}

const { taskStore, close } = await openTaskStore();
const requestHandler = new DefaultRequestHandler(agentCard, taskStore, executor);
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

const server = app.listen(port, '127.0.0.1', () => {
  const actual = server.address().port;
  agentCard.supportedInterfaces[0].url = `http://127.0.0.1:${actual}${JSONRPC_PATH}`;
  console.log(`ready ${actual}`);
});
server.on('error', (err) => {
  console.error(err.message);
  process.exit(1);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => server.close(() => close().finally(() => process.exit(0))));
}
