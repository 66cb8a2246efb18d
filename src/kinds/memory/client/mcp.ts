/**
 * The memory kind's MCP tools (see src/mcp/tool.ts): one per board skill, made from the
 * skill table (skills.ts), so a tool's name is `muster_` and the skill's id (`board.read` is
 * muster_board_read), its input is the skill's own argument schema, and its description the
 * skill's. Each call is a skill call at the memory base, as `muster board` makes it; a skill that
 * answers the board file gives it back embedded, as the resource muster://boards/{id}.
 */
import type { JsonObject } from '../../../a2a/types.js';
import type { Task } from '../../../client/wire.js';
import { tool, type EmbeddedFile, type MusterTool, type ToolAnswer, type ToolCall } from '../../../mcp/tool.js';
import { BOARD_MEDIA_TYPE } from '../board-file.js';
import { answersBoardFile, boardFileOf, callSkill, callText } from './calls.js';
import { CONNECT, SKILL_SPECS, type SkillSpec } from '../skill-specs.js';

/** What a tool adds to its skill: when an agent uses it, whether it leaves the boards as they are, and what to do after. */
interface ToolWords {
  when: string;
  readOnly?: true;
  next: string;
}

const FOLLOW_UP: Readonly<Record<string, ToolWords>> = {
  'board.create': {
    when: 'Use it to start keeping what you know on a board of its own.',
    next: 'add cards with muster_board_remember, find them again with muster_board_recall',
  },
  'board.remember': {
    when: 'Use it to keep something for later (a decision, a fact, a finding) on a board you may write.',
    next: 'find it again with muster_board_recall',
  },
  'board.learn': {
    when: 'Use it when you found out how to do something (or what to avoid) that you or others will need again.',
    next: 'it comes first when muster_board_recall finds it',
  },
  'board.recall': {
    when: 'Use it before you start work, to find what you or others already know.',
    readOnly: true,
    next: 'read a whole board with muster_board_read',
  },
  'board.read': {
    when: 'Use it to read a whole board; the board file comes embedded.',
    readOnly: true,
    next: 'add to it with muster_board_remember',
  },
  'board.list': {
    when: 'Use it to see which boards there are to read.',
    readOnly: true,
    next: 'read one with muster_board_read {board}',
  },
  'board.insights': {
    when: 'Use it to see what a board lacks: loose cards and unanswered questions.',
    readOnly: true,
    next: 'connect related cards with muster_board_connect',
  },
  [CONNECT]: {
    when: 'Use it to tidy a board: it only proposes, and draws nothing until you confirm with muster_reply {id: <its taskId>, data: {"confirm": true}}.',
    readOnly: true,
    next: 'read the board with muster_board_read',
  },
};

const toolName = (skill: SkillSpec): `muster_${string}` => `muster_${skill.id.replace('.', '_')}`;

/** The data part of a call's result (or, waiting for input, of its status message). */
function dataOf(task: Task): JsonObject {
  const parts =
    task.status.state === 'TASK_STATE_COMPLETED'
      ? task.artifacts?.find((a) => a.artifactId === 'result')?.parts
      : task.status.message?.parts;
  return (parts?.find((p) => p.data !== undefined)?.data as JsonObject | undefined) ?? {};
}

/**
 * What to send when a call asks: board.connect's proposal waits for a confirmation; any other ask
 * (the tools' schemas hold the args a skill needs, so it is rare) wants the args it names as data.
 */
function askedNext(task: Task): string {
  const asked = dataOf(task);
  if (Array.isArray(asked['proposal']))
    return `to draw them, call muster_reply {id: "${task.id}", data: {"confirm": true}}; any other reply leaves the board as it is`;
  const example = JSON.stringify(asked['example'] ?? {});
  return `send what it asks with muster_reply {id: "${task.id}", data: ${example}}`;
}

/** The board file a call answers, as the resource muster://boards/{id}. */
async function embeddedBoard(call: ToolCall, task: Task): Promise<EmbeddedFile> {
  const file = await boardFileOf(call, task);
  return {
    uri: `muster://boards/${encodeURIComponent(file.board.id)}`,
    mimeType: BOARD_MEDIA_TYPE,
    text: JSON.stringify(file),
  };
}

/** A call's task as the tool answers it: the skill's own words and data, the board file if it came, and what to do next. */
async function skillAnswer(call: ToolCall, skill: SkillSpec, task: Task): Promise<ToolAnswer> {
  const next = task.status.state === 'TASK_STATE_INPUT_REQUIRED' ? askedNext(task) : FOLLOW_UP[skill.id]!.next;
  const resources = answersBoardFile(task) ? [await embeddedBoard(call, task)] : [];
  return {
    text: `${callText(task)}\nNext: ${next}.`,
    structured: { taskId: task.id, state: task.status.state, ...dataOf(task), next },
    ...(resources.length ? { resources } : {}),
  };
}

const skillTool = (skill: SkillSpec): MusterTool =>
  tool({
    name: toolName(skill),
    title: skill.name,
    description: `${skill.description} ${FOLLOW_UP[skill.id]!.when}`,
    input: skill.args,
    ...(FOLLOW_UP[skill.id]!.readOnly ? { readOnly: true } : {}),
    async run(args, call) {
      // Ask for the board file only where the skill answers it; the tool embeds it.
      const configuration = skill.answersBoard
        ? { acceptedOutputModes: ['text/plain', 'application/json', BOARD_MEDIA_TYPE] }
        : undefined;
      return skillAnswer(call, skill, await callSkill(call, skill.id, args, configuration));
    },
  });

export const memoryTools: readonly MusterTool[] = SKILL_SPECS.map(skillTool);
