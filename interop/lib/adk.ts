// @google/adk 2.0.0 pieces: a deterministic model of our own (no API keys, no network) and an
// ADK agent served with toA2a.
import { createServer, type Server } from 'node:http';
import {
  BaseLlm,
  LlmAgent,
  LogLevel,
  LongRunningFunctionTool,
  getA2AAgentCard,
  setLogLevel,
  toA2a,
  type LlmRequest,
  type LlmResponse,
} from '@google/adk';

// ADK warns on every A2A run (unauthenticated toA2a, remote tool confirmations): keep its errors only.
setLogLevel(LogLevel.ERROR);
import type { AgentCard } from '@a2a-js/sdk';

/** A model that answers from a script: it reads the last turn and returns a canned response. */
export class CannedLlm extends BaseLlm {
  constructor() {
    super({ model: 'canned-interop-model' });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const last = request.contents.at(-1);
    const answer = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
    if (answer) {
      yield {
        content: { role: 'model', parts: [{ text: `ADK agent got the answer: ${JSON.stringify(answer.response)}` }] },
        turnComplete: true,
      };
      return;
    }
    const text = (last?.parts ?? [])
      .map((p) => p.text ?? '')
      .join(' ')
      .trim();
    if (/^ask\b/i.test(text)) {
      // A long-running tool call: the run pauses and the A2A task becomes input-required.
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'ask_user', args: { question: 'Which chapter?' } } }],
        },
        turnComplete: true,
      };
      return;
    }
    yield { content: { role: 'model', parts: [{ text: `ADK agent read: ${text}` }] }, turnComplete: true };
  }
  async connect(): Promise<never> {
    throw new Error('CannedLlm has no live mode');
  }
}

export function cannedAgent(name: string): LlmAgent {
  return new LlmAgent({
    name,
    description: 'An ADK agent with a canned model, for interop tests.',
    model: new CannedLlm(),
    instruction: 'Answer from the script.',
    tools: [
      new LongRunningFunctionTool({
        name: 'ask_user',
        description: 'Ask the user a question; the answer comes later.',
        execute: () => undefined, // nothing yet: the answer arrives as a function response
      }),
    ],
  });
}

export interface AdkEndpoint {
  base: string;
  /** The card object the server was built with (its configuration). */
  card: AgentCard;
  close(): Promise<void>;
}

/** An ADK agent served by toA2a on 127.0.0.1, with the card built by ADK's own getA2AAgentCard. */
export async function startAdkEndpoint(name: string): Promise<AdkEndpoint> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}/`;
  const agent = cannedAgent(name);
  const card = await getA2AAgentCard(agent, [
    { url: `${base}jsonrpc`, transport: 'JSONRPC' },
    { url: `${base}rest`, transport: 'HTTP+JSON' },
  ]);
  const app = await toA2a(agent, { host: '127.0.0.1', port, agentCard: card, allowUnauthenticated: true });
  server.on('request', app);
  return {
    base,
    card,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
