/**
 * The memory kind's calls at the memory base, shared by its CLI (cli.ts) and its MCP tools
 * (mcp.ts): one skill call, what it says, and the board file it answers. Imports only the
 * client and this folder's plain modules: neither loads the hub.
 */
import { path, request, type Target } from '../../../client/http.js';
import { sendData } from '../../../client/send-data.js';
import type { Task } from '../../../client/wire.js';
import type { BoardFile } from '../board-file.js';

const MEMORY_BASE = 'memory/';

/** Anything that says where to send and as whom: a command's context, or an MCP tool call. */
export interface On {
  target: Target;
}

/** One skill call at the memory base; `configuration` goes with the message (acceptedOutputModes, say). */
export const callSkill = (on: On, skill: string, args: object, configuration?: object): Promise<Task> =>
  sendData(on, { skill, args }, undefined, undefined, MEMORY_BASE, configuration);

/** What a memory call says for people: its result's text, or what its status asks. */
export function callText(task: Task): string {
  const result = task.artifacts?.find((a) => a.artifactId === 'result')?.parts.find((p) => p.text !== undefined)?.text;
  const asked = task.status.message?.parts.find((p) => p.text !== undefined)?.text;
  return (task.status.state === 'TASK_STATE_COMPLETED' ? result : asked) ?? `${task.id} ${task.status.state}`;
}

/** Whether the call answered a board file (inline or as a link). */
export const answersBoardFile = (task: Task): boolean => task.artifacts?.some((a) => a.artifactId === 'board') ?? false;

/** The board file a call answers: inline, or (a large board) fetched from the link it gives. */
export async function boardFileOf(on: On, task: Task): Promise<BoardFile> {
  const part = task.artifacts?.find((a) => a.artifactId === 'board')?.parts[0];
  if (part?.raw !== undefined) return JSON.parse(Buffer.from(part.raw, 'base64').toString('utf8')) as BoardFile;
  const board = (task.metadata?.['muster'] as { board?: string } | undefined)?.board;
  if (part?.url === undefined || board === undefined)
    throw new Error(`the hub answered no board file (${callText(task)})`);
  return (await request(on.target, `api/boards/${path(board)}`)) as BoardFile;
}
