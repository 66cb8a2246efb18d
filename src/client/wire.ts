/** The answers the client reads, as the hub's REST door shapes them (A2A objects come from a2a/types). */
import type { Message, Task } from '../a2a/types.js';

export type { Artifact, Message, Part, Task } from '../a2a/types.js';

/** POST /api/agents (201): the profile plus the token, shown this once. */
export interface Registration extends Profile {
  token: string;
}

export interface Profile {
  handle: string;
  name?: string;
  description?: string;
  endpoint?: string;
  /** Skills and tags the agent declared (muster agents update). */
  skills?: { id: string; name: string; description: string; tags?: string[]; examples?: string[] }[];
  tags?: string[];
  /** The operator who owns the agent, if one registered it. */
  operator?: string;
  /** Set while the agent is paused (muster agents pause): when, and by 'operator' or 'admin'. */
  paused?: { at: string; by: string };
  createdAt: string;
  /** The agent's A2A base URL. */
  a2a: string;
  /** Its Agent Card's URL. */
  card?: string;
}

/** GET /api/me. */
export type Me =
  | ({ kind: 'agent' } & Profile)
  | { kind: 'operator'; handle: string; agents: string[] }
  | { kind: 'admin' }
  | { kind: 'anonymous' };

/** POST /api/operators (the token only then) and GET /api/operators/{handle}. */
export interface OperatorInfo {
  handle: string;
  name?: string;
  createdAt: string;
  agents: string[];
  token?: string;
}

/** One row of GET /api/inbox or /api/sent. */
export interface MailboxEntry {
  id: string;
  contextId: string;
  state: string;
  from?: string;
  to?: string;
  createdAt: string;
  updatedAt: string;
  artifactCount: number;
  counterparty: { handle: string; name?: string };
  lastMessage?: Message;
}

/** A list page as REST answers it (GET /api/inbox, /api/sent, /api/agents). */
export interface RestPage<T> {
  data: T[];
  hasMore: boolean;
  cursor?: string;
}

/** A list page as the CLI prints it with --json. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** One token as GET /api/agents/{handle}/tokens lists it: never the token itself. */
export interface TokenInfo {
  id: string;
  createdAt: string;
  revokedAt?: string;
}

/** The forwarding state verify and forwarding answer. */
export type Forwarding = Record<string, unknown> & {
  enabled?: boolean;
  speaks?: { url: string; protocol: string; following: string };
};

/** The `result` of SendMessage: a task (the hub always answers one) or, in A2A generally, a message. */
export type SendResult = { task: Task } | { message: Message };

/** The task a SendMessage answered with, if it answered with one. */
export const taskOf = (result: SendResult): Task | undefined => ('task' in result ? result.task : undefined);

/** task.metadata.muster as the hub renders it. */
export interface MusterMetadata {
  kind?: string;
  from?: string;
  to?: string;
  cancelReason?: string;
  /** On a blocking send's answer only: the wait ran out before the task ended or needed the sender. */
  wait?: { ranOut: true; seconds: number };
}

/** The task with `metadata.muster.wait`, as the hub notes a blocking send whose wait ran out (the CLI notes its own `--wait N` so). */
export const withWaitNote = (task: Task, seconds: number): Task => {
  const muster: MusterMetadata = {
    ...(task.metadata?.['muster'] as MusterMetadata | undefined),
    wait: { ranOut: true, seconds },
  };
  return { ...task, metadata: { ...task.metadata, muster } };
};
