/**
 * The client half of a kind, from its wing (src/kinds/<kind>/client/): its CLI commands, the
 * section `muster get` shows for its tasks, its step of `muster demo` and its MCP tools. It
 * imports only the client library (src/client/, src/mcp/) and its wing's wire files, never the
 * hub. The halves are listed once, in src/kinds/client.ts KIND_CLIENTS.
 */
import type { Command } from 'commander';
import type { TaskSection } from '../client/format.js';
import type { Task } from '../client/wire.js';
import type { DemoStep } from '../client/demo/step.js';
import type { MusterTool } from '../mcp/tool.js';

export interface KindClient {
  /** The kind's name, as its server module (KindModule.name) and its wing's folder. */
  readonly name: string;
  /** Adds the kind's commands to the program. */
  commands?(program: Command): void;
  /** What `muster get` shows of one of the kind's tasks in place of its history; undefined for any other task. */
  section?(task: Task): TaskSection | undefined;
  /** The kind's step of `muster demo`, run in the order of KIND_CLIENTS. */
  demo?: DemoStep;
  /** The kind's MCP tools, listed after the MCP wing's own in the order of KIND_CLIENTS. */
  tools?: readonly MusterTool[];
}

/** What a wing's cli.ts brings (its index.ts adds the name and the tools). */
export type KindCli = Omit<KindClient, 'name' | 'tools'>;
