/**
 * The MCP door's server: one McpServer (the official v2 SDK) per connection, holding the door's
 * own tools and the kinds' it is given, all of them clients of the hub's doors through one
 * Target. The same server runs on stdio (`muster mcp`, a hub anywhere) and on the hub's /mcp
 * (in-process). Without a token only the public tools are listed, so none other can be called.
 */
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { parseWith } from '../a2a/validate.js';
import type { Target } from '../client/http.js';
import { VERSION } from '../version.js';
import { toolErrorResult } from './errors.js';
import { registerResources } from './resources.js';
import { Subscriptions } from './subscriptions.js';
import { toolCall, type MusterTool, type ToolSource } from './tool.js';
import { DOOR_TOOLS } from './tools/index.js';

type ListedTool = { tool: MusterTool; input: MusterTool['input'] };
const listed = new WeakMap<readonly ToolSource[], readonly ListedTool[]>();

/**
 * Every tool, the door's first, in the order they are listed, with its input made strict once per
 * list of kinds (an argument no tool takes, a misspelt one, is refused, not dropped: the caller learns it).
 */
function allTools(kinds: readonly ToolSource[]): readonly ListedTool[] {
  let tools = listed.get(kinds);
  if (!tools)
    listed.set(
      kinds,
      (tools = [...DOOR_TOOLS, ...kinds.flatMap((k) => k.tools ?? [])].map((tool) => ({
        tool,
        input: tool.input.strict(),
      }))),
    );
  return tools;
}

const INSTRUCTIONS = [
  'Muster is an A2A hub: agents send each other tasks, review requests, work intents and memory-board calls.',
  'Every tool answers a short summary and structuredContent with the task (or board, or list) and `next`: what to do next.',
  'Work intents live in spaces: make one with muster_space_create, add workers with muster_space_member_add, then muster_intent_declare.',
  'To follow a task without polling, call muster_wait_task with the last event number you saw, or subscribe to muster://tasks/{id}.',
  "A refusal is a tool error with the hub's code and a hint saying what to send instead.",
].join(' ');

/** The tools a caller may list and call: all with a token, only the public ones without. */
const toolsFor = (target: Target, kinds: readonly ToolSource[]) =>
  target.token ? allTools(kinds) : allTools(kinds).filter(({ tool }) => tool.public === true);

/**
 * The tool's input schema as the SDK lists it, but checked by the tool's own call (runTool): the
 * SDK's own check answers a bare sentence, the door answers INVALID_PARAMS with the fields at fault
 * and a hint, like every other refusal.
 */
function listedSchema(input: MusterTool['input']): StandardSchemaWithJSON {
  const own = input['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: 'muster',
      validate: (value: unknown) => ({ value }),
      jsonSchema: own.jsonSchema,
    },
  };
}

async function runTool(
  tool: MusterTool,
  input: MusterTool['input'],
  args: unknown,
  target: Target,
  signal: AbortSignal,
): Promise<CallToolResult> {
  try {
    const answer = await tool.run(parseWith(input, args ?? {}), toolCall(target, signal));
    const files = (answer.resources ?? []).map((resource) => ({ type: 'resource' as const, resource }));
    return { content: [{ type: 'text', text: answer.text }, ...files], structuredContent: answer.structured };
  } catch (failure) {
    return toolErrorResult(failure);
  }
}

/** An MCP server whose tools (the door's and `kinds`') and resources reach the hub at `target`, as its token. */
export function buildMcpServer(target: Target, kinds: readonly ToolSource[]): McpServer {
  const server = new McpServer(
    { name: 'muster', title: 'Muster A2A hub', version: VERSION },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions: INSTRUCTIONS },
  );
  for (const { tool, input } of toolsFor(target, kinds)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: listedSchema(input),
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly === true,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      (args, ctx) => runTool(tool, input, args, target, ctx.mcpReq.signal),
    );
  }
  registerResources(server, target);
  const subscriptions = new Subscriptions(target, (uri) => server.server.sendResourceUpdated({ uri }));
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    await subscriptions.subscribe(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  server.server.onclose = () => subscriptions.closeAll();
  return server;
}
