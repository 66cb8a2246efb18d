/**
 * Memory calls (the KLYPIX way of working): the hub itself performs board skills at the memory
 * base. A call is a message whose data part names a skill (`{"skill", "args"}`), or free text
 * routed by what it asks (phrasing.ts). Each call is a task private to its caller, done at once:
 * it opens and settles in one write (so a stream shows the whole lifecycle), COMPLETED with its
 * result, or INPUT_REQUIRED when it lacks input or asks to confirm; a follow-up with the same
 * taskId brings what was asked for and settles the same task.
 */
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Artifact, JsonObject, Message, Part } from '../../a2a/types.js';
import { HubError, invalidParams, isHubError, type FieldViolation } from '../../errors/hub-error.js';
import type { Quotas } from '../../identity/quotas.js';
import { requireAgent } from '../../identity/caller.js';
import type { StoredTask } from '../../store/store.js';
import type { Change, Kind, KindContext, Opening } from '../../hub/kind.js';
import type { KindModule } from '../../hub/kind-module.js';
import { ARGS, DATA } from '../../wire/skill-call.js';
import { boardAccess, type BoardDeps, type CallCharge } from './board-access.js';
import { boardReads, BoardReads } from './board-reads.js';
import { BOARD_MEDIA_TYPE, boardFilePart } from './board-file.js';
import { boardFile } from './board-view.js';
import { MEMORY_LIMITS as L } from './limits.js';
import { MEMORY_QUOTA_RULES } from './quota-rules.js';
import { routeText, type RoutedCall } from './phrasing.js';
import { inFollowUp, inText, refusedArgs, textField } from './refusals.js';
import { checkPresent, SKILL_BY_ID, SKILLS, settleProposal, type MemoryEnv } from './skills.js';
import type { Outcome, Pending } from './outcomes.js';
import { CONNECT, ownBoardId } from './skill-specs.js';

export const MEMORY = 'memory';

const SKILL_IDS = SKILLS.map((s) => s.id).join(', ');
const EXAMPLE = JSON.stringify({ skill: 'board.recall', args: { query: 'what we decided #decision' } });

interface MemoryFacts {
  skill?: string;
  board?: string;
  pending?: Pending;
}

const factsOf = (task: StoredTask) => (task.record.metadata?.['muster'] ?? {}) as MemoryFacts;
const agentSays = (parts: Part[]): Message => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts });
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The one data part of a message, if that is all it carries. */
function dataOf(message: Message): unknown {
  const [part, ...rest] = message.parts;
  return rest.length === 0 ? part?.data : undefined;
}

/** The text of a message made only of text parts. */
function textOf(message: Message): string | undefined {
  return message.parts.every((p) => typeof p.text === 'string')
    ? message.parts.map((p) => p.text).join('\n')
    : undefined;
}

/** A call to run: a skill, its args, and (when they were not sent as `message.parts[0].data.args`) how its refusals name where they were. */
interface Call {
  skill: string;
  args: unknown;
  inCallerTerms?: (refusal: unknown) => unknown;
  /** Args to ask for again, rather than refuse, when they are wrong (`askOnError`). */
  askOnError?: string[];
  /** Args asked for again: the call waits for them. */
  asked?: string[];
}

const CALL_FIELDS = ['skill', 'args', 'askOnError'];

/** What a message asks: a skill call by data part, or routed free text; undefined when it asks nothing we know. */
function callOf(message: Message, handle: string): Call | undefined {
  const data = dataOf(message);
  if (isObject(data) && 'skill' in data) {
    if (typeof data['skill'] !== 'string')
      throw invalidParams(`${DATA}.skill`, 'must be the id of a memory skill', `Send one of: ${SKILL_IDS}`);
    const extra = Object.keys(data).filter((k) => !CALL_FIELDS.includes(k));
    if (extra.length)
      throw invalidParams(`${DATA}.${extra[0]}`, 'is not a field of a skill call', 'Send {"skill": …, "args": {…}}');
    const askOnError = data['askOnError'];
    if (askOnError !== undefined && !(Array.isArray(askOnError) && askOnError.every((a) => typeof a === 'string')))
      throw invalidParams(`${DATA}.askOnError`, "must be a list of the skill's argument names", 'Send ["connections"]');
    return {
      skill: data['skill'],
      args: data['args'] ?? {},
      ...(askOnError ? { askOnError: askOnError as string[] } : {}),
    };
  }
  const text = textOf(message);
  const routed = text === undefined ? undefined : routeText(text);
  if (!routed) return undefined;
  const ownBoard = routed.toOwnBoard ? { board: ownBoardId(handle) } : {};
  const dataPart = dataPartLike(routed, ownBoard);
  return {
    skill: routed.skill,
    args: { ...routed.args, ...ownBoard },
    inCallerTerms: (e) => inText(e, textField(message.parts.length), routed.skill, dataPart),
  };
}

/** The data part that makes a call like routed text: the skill's example, on the caller's own board when the text writes there (its id is not for a caller to guess). */
function dataPartLike(routed: RoutedCall, ownBoard: JsonObject): JsonObject {
  const { example } = SKILL_BY_ID.get(routed.skill)!;
  return { ...example, args: { ...(example['args'] as JsonObject), ...ownBoard } };
}

/** Args a skill must be given that the call lacks, and those it asked for again. */
function missingArgs(skill: string, args: JsonObject, asked: readonly string[] = []): string[] {
  const wanted = [...(SKILL_BY_ID.get(skill)?.needs ?? []), ...asked];
  return [...new Set(wanted)].filter((n) => args[n] === undefined);
}

/** An example value of an arg: from the skill's own example, else from another skill's that has one. */
function exampleArg(skill: string, name: string): unknown {
  const own = SKILL_BY_ID.get(skill)!.example['args'] as JsonObject | undefined;
  if (own?.[name] !== undefined) return own[name];
  return SKILLS.map((s) => (s.example['args'] as JsonObject | undefined)?.[name]).find((v) => v !== undefined);
}

/** Asks for the args a call lacks (`missing`); `wrong` says why args it sent are asked for again. */
function asksFor(call: Call, args: JsonObject, missing: string[], wrong?: readonly FieldViolation[]): Outcome {
  const { skill } = call;
  const example = Object.fromEntries(missing.map((m) => [m, exampleArg(skill, m)]));
  const needs = SKILL_BY_ID.get(skill)!.needs;
  const asked = missing.filter((m) => !needs.includes(m));
  const why = wrong ? `${wrong.map((f) => `${f.field} ${f.description}`).join('; ')}. ` : '';
  return {
    state: 'TASK_STATE_INPUT_REQUIRED',
    text: `${why}${skill} needs ${missing.join(' and ')}. Reply with this taskId and a data part carrying ${missing.length === 1 ? 'it' : 'them'}, such as ${JSON.stringify(example)}.`,
    data: { skill, missing, example, ...(wrong ? { wrong: wrong.map((f) => ({ ...f })) } : {}) },
    pending: {
      skill,
      args,
      ...(call.askOnError ? { askOnError: call.askOnError } : {}),
      ...(asked.length ? { asked } : {}),
    },
  };
}

const unrouted = (): Outcome => ({
  state: 'TASK_STATE_INPUT_REQUIRED',
  text: `That asks nothing the memory base knows. Send a data part naming a skill, such as ${EXAMPLE} (skills: ${SKILL_IDS}), or ask "What do we know about X?".`,
  data: { skills: SKILLS.map((s) => s.id), example: JSON.parse(EXAMPLE) as JsonObject },
  pending: { skill: '', args: {} },
});

/**
 * Runs a call, or asks for what it lacks once what it carries is right; a refusal of its args
 * names them where the caller sent them. Args the call names in `askOnError` are asked for again
 * when they are wrong, instead of refused.
 */
async function run(env: MemoryEnv, call: Call): Promise<Outcome> {
  const { skill, args, inCallerTerms } = call;
  const found = SKILL_BY_ID.get(skill);
  if (!found) throw invalidParams(`${DATA}.skill`, `names no memory skill: '${skill}'`, `Send one of: ${SKILL_IDS}`);
  if (!isObject(args))
    throw invalidParams(
      ARGS,
      "must be an object of the skill's arguments",
      `See the card's example: ${JSON.stringify(found.example)}`,
    );
  const unknown = call.askOnError?.find((a) => !(a in found.args.shape));
  if (unknown !== undefined)
    throw invalidParams(`${DATA}.askOnError`, `names no argument of ${skill}: '${unknown}'`, 'Send ["connections"]');
  const missing = missingArgs(skill, args, call.asked);
  try {
    if (!missing.length) return await found.run(env, args);
    checkPresent(found, args, missing);
    return asksFor(call, args, missing);
  } catch (e) {
    const told = inCallerTerms ? inCallerTerms(e) : e;
    const wrong = call.askOnError && refusedArgs(e, call.askOnError);
    if (!wrong || !isHubError(told)) throw told;
    const kept = Object.fromEntries(Object.entries(args).filter(([k]) => !wrong.includes(k)));
    return asksFor(call, kept, [...new Set([...missing, ...wrong])], told.fields);
  }
}

/** Whether the caller takes the board file in answers (no acceptedOutputModes: anything). */
const wantsFile = (ctx: KindContext) =>
  !ctx.acceptedOutputModes?.length || ctx.acceptedOutputModes.includes(BOARD_MEDIA_TYPE);

/** The task's status, artifacts and facts for an outcome. */
function settle(ctx: KindContext, skill: string, outcome: Outcome): Change {
  const result: Part[] = [{ text: outcome.text }, { data: outcome.data, mediaType: 'application/json' }];
  const artifacts: Artifact[] = [];
  if (outcome.state === 'TASK_STATE_COMPLETED') {
    artifacts.push({ artifactId: 'result', name: skill, parts: result });
    if (outcome.board && wantsFile(ctx)) {
      const { cards, connections, ...board } = outcome.board;
      artifacts.push({
        artifactId: 'board',
        name: 'Board file',
        parts: [boardFilePart(boardFile(board, cards, connections), L.inlineBoardFile, ctx.hubUrl)],
      });
    }
  }
  const boardId =
    outcome.board?.id ??
    (isObject(outcome.data['board']) ? (outcome.data['board']['id'] as string | undefined) : undefined);
  return {
    state: outcome.state,
    statusMessage: agentSays(outcome.state === 'TASK_STATE_INPUT_REQUIRED' ? result : [{ text: outcome.text }]),
    messages: [],
    artifacts,
    metadata: {
      muster: {
        skill: skill || null,
        board: boardId ?? null,
        pending: outcome.pending ?? null,
      } as unknown as JsonObject,
    },
  };
}

/**
 * The call a follow-up resumes: the waiting args with what the follow-up gives, bare
 * (`{"board": …}`) or in `{"args": …}`; a refusal names each given arg in the follow-up's data part.
 */
function resumedCall(pending: Pending, data: unknown): Call {
  const wrapped = isObject(data) && isObject(data['args']);
  const given = wrapped ? (data['args'] as JsonObject) : isObject(data) ? data : undefined;
  if (!given)
    throw invalidParams(
      'message.parts',
      `must be one data part with what ${pending.skill} still needs`,
      `Send parts: [{"data": ${JSON.stringify(Object.fromEntries(missingArgs(pending.skill, pending.args, pending.asked).map((m) => [m, '…'])))}}]`,
    );
  const root = wrapped ? ARGS : DATA;
  return {
    skill: pending.skill,
    args: { ...pending.args, ...given },
    inCallerTerms: (e) => inFollowUp(e, Object.keys(given), root),
    ...(pending.askOnError ? { askOnError: pending.askOnError } : {}),
    ...(pending.asked ? { asked: pending.asked } : {}),
  };
}

export function memoryKind(quotas: Quotas, deps: BoardDeps): Kind {
  const envOf = (ctx: KindContext, handle: string, message: Message, charge: CallCharge): MemoryEnv => ({
    caller: handle,
    writer: { writtenBy: `a2a:${handle}`, now: ctx.now, seed: `${handle}\u0000${message.messageId}` },
    boards: boardAccess(deps, ctx.caller, ctx.now, charge),
    wantsFile: wantsFile(ctx),
  });
  /** The call's charge, refused now when it would go over (before the skill does any work); paid by whichever write comes first. */
  const chargeFor = async (ctx: KindContext, handle: string): Promise<CallCharge> => {
    const unpaid = quotas.charge('memory.calls', handle, ctx.now);
    await ctx.reads.requireQuota(unpaid);
    return { take: () => unpaid.splice(0), refused: (e) => quotas.refusal(e, ctx.now) };
  };

  return {
    name: MEMORY,
    worksOnOpen: true, // a skill writes its board before the task is written
    visibility: { readers: 'sender', listedAt: ['base'] }, // a call is private to its caller; listed at the memory base and the hub's

    async open(ctx: KindContext, message: Message): Promise<Opening> {
      const handle = requireAgent(ctx.caller, 'call memory skills');
      const charge = await chargeFor(ctx, handle);
      const call = callOf(message, handle);
      const outcome = call ? await run(envOf(ctx, handle, message, charge), call) : unrouted();
      return {
        kind: MEMORY,
        contextId: message.contextId ?? uuidv7(),
        sender: handle,
        visibility: 'participants',
        state: 'TASK_STATE_SUBMITTED',
        messages: [message],
        quotas: charge.take(), // none left when a board write paid it
        settles: settle(ctx, call?.skill ?? '', outcome),
      };
    },

    async followUp(ctx: KindContext, task: StoredTask, message: Message): Promise<Change> {
      const handle = requireAgent(ctx.caller, 'call memory skills');
      const { pending } = factsOf(task);
      if (task.record.state !== 'TASK_STATE_INPUT_REQUIRED' || !pending) {
        throw new HubError(
          'UNSUPPORTED_OPERATION',
          `Memory call ${task.record.id} is ${task.record.state}; it takes no more messages`,
          {
            hint: 'Send a new message without taskId for a new call',
            meta: { currentState: task.record.state },
          },
        );
      }
      const charge = await chargeFor(ctx, handle);
      const env = envOf(ctx, handle, message, charge);
      const data = dataOf(message);
      let outcome: Outcome;
      let skill = pending.skill;
      if (pending.skill === CONNECT && pending.proposal)
        outcome = await settleProposal(env, pending, isObject(data) && data['confirm'] === true);
      else if (pending.skill === '') {
        const call = callOf(message, handle);
        skill = call?.skill ?? '';
        outcome = call ? await run(env, call) : unrouted();
      } else outcome = await run(env, resumedCall(pending, data));
      return { ...settle(ctx, skill, outcome), messages: [message], quotas: charge.take() };
    },

    cancel(ctx: KindContext): Change {
      requireAgent(ctx.caller, 'cancel a memory call');
      return { state: 'TASK_STATE_CANCELED', messages: [], artifacts: [], metadata: { muster: { pending: null } } };
    },

    actions: {},
  };
}

export const memoryModule: KindModule = {
  name: MEMORY,
  quotaRules: MEMORY_QUOTA_RULES,
  base: {
    name: 'memory',
    card: {
      name: 'Muster memory',
      description:
        'The memory base of a Muster hub: shared memory boards the hub itself keeps. Send a data part {"skill": "board.…", "args": {…}} (each skill below has an example), or ask in plain words ("What do we know about X?"). Every call is a task private to its caller, answered at once.',
      bearer: 'An agent token from POST /api/agents; public boards are read without one at GET /api/boards/{id}',
    },
  },
  opensAt: [{ door: 'base' }],
  cardSkills: (door) =>
    door !== 'base'
      ? []
      : SKILLS.map((s) => ({
          id: s.id,
          name: s.name,
          description: s.description,
          tags: ['memory', 'board'],
          examples: [JSON.stringify(s.example)],
          inputModes: ['application/json', 'text/plain'],
          outputModes: s.answersBoard
            ? ['text/plain', 'application/json', BOARD_MEDIA_TYPE]
            : ['text/plain', 'application/json'],
        })),
  create: ({ quotas, store, requireAgent }) => memoryKind(quotas, { store, requireAgent }),
  restReads: ({ store }) => boardReads(new BoardReads(store)),
};
