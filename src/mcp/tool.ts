/**
 * What an MCP tool is at Muster. Every tool is a client of the hub's own doors (REST and A2A
 * JSON-RPC, through src/client/http.ts), so what it may see and what it is refused are exactly
 * what those doors decide: `muster mcp` (stdio) reaches a hub anywhere over HTTP, and the hub's
 * `/mcp` runs the same tools against itself in-process. A kind brings its tools from its own
 * wing (src/kinds/<kind>/client/mcp.ts, in its client half), importing only the client.
 */
import type { z } from 'zod';
import type { Target } from '../client/http.js';

/** Where a tool call goes and as whom; `signal` ends with the MCP request. */
export interface ToolCall {
  /** Carries `signal` too, so every hub call the tool makes ends with the MCP request (see toolCall). */
  target: Target;
  signal: AbortSignal;
}

/**
 * The one place a tool call is made: the target bound to the MCP request's signal, so when the
 * client cancels or the session closes, whatever the tool is asking the hub is cut off with it.
 */
export const toolCall = (target: Target, signal: AbortSignal): ToolCall => ({ target: { ...target, signal }, signal });

/** A tool's answer: a short text summary (what happened and what to do next) and the same as data. */
export interface ToolAnswer {
  text: string;
  /** The tool result's structuredContent: the task (or board, or list) and whatever else the text says. */
  structured: Record<string, unknown>;
  /** Files the answer carries whole (a board's file): the result's content embeds each as a `resource`. */
  resources?: readonly EmbeddedFile[];
}

/** A file embedded in a tool result (MCP's embedded resource with text contents). */
export interface EmbeddedFile {
  uri: string;
  mimeType: string;
  text: string;
}

export interface MusterTool<Input extends z.ZodObject = z.ZodObject> {
  /** A contract (prompts and scripts name it): `muster_` then the action. */
  name: `muster_${string}`;
  title: string;
  /** When to use it, in the agent's terms. */
  description: string;
  input: Input;
  /** Listed to a caller without a token: it reads only what anyone may read. */
  public?: boolean;
  /** It changes nothing at the hub (MCP's readOnlyHint). */
  readOnly?: boolean;
  run(args: z.infer<Input>, call: ToolCall): Promise<ToolAnswer>;
}

/**
 * What brings the MCP server tools besides its own: a kind's client half (src/kinds/kind-client.ts),
 * of which the server reads only the tools, so it needs nothing else of the kinds.
 */
export interface ToolSource {
  readonly tools?: readonly MusterTool[];
}

/** Erases a tool's own input type so tools of every shape fit one list. */
export const tool = <Input extends z.ZodObject>(definition: MusterTool<Input>): MusterTool =>
  definition as unknown as MusterTool;
