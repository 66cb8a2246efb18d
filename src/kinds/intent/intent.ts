import { v7 as uuidv7 } from 'uuid';
import type { JsonObject, Message } from '../../a2a/types.js';
import { HubError } from '../../errors/hub-error.js';
import { callerName, requireToken } from '../../identity/caller.js';
import { MINUTE, type Quotas } from '../../identity/quotas.js';
import { INTENT_QUOTA_RULES } from './quota-rules.js';
import { INTENT_SETTINGS, intentSettingsFrom, type IntentSettings } from './settings.js';
import type { StoredTask } from '../../store/store.js';
import {
  doorOf,
  type Change,
  type Kind,
  type KindContext,
  type LockedReads,
  type Opening,
  type Standing,
  type Twin,
} from '../../hub/kind.js';
import type { KindModule } from '../../hub/kind-module.js';
import { PRIORITY, readDeclaration, type Declaration } from './declaration.js';
import { factsOf, holdFacts, INTENT, said, type IntentFacts } from './facts.js';
import { footprintsOverlap, intentOpenKey, storedOpenKey, titleWords } from './twins.js';
import { heldIntentsPage, intentsPage, IntentListing } from './listing.js';
import { READS_NEED_NO_TOKEN } from '../../hub/spaces.js';
import { askInput, claim, fail, heartbeat, holdEnds, land, leaseExpired, progress, release } from './work.js';

export const DECLARE_INTENT = 'declare-intent';
/** How long a landed intent still catches its twins. */
const TWIN_WINDOW_MS = 30 * MINUTE;
const OPEN_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'] as const;
/** Open intents a twin check reads at most (the oldest beyond it are not compared). */
const TWIN_SCAN = 2_000;

/** The space's standing of the caller, or SPACE_NOT_FOUND. */
async function standingIn(ctx: KindContext, space: string): Promise<Standing> {
  const standing = await ctx.reads.standing(space, ctx.caller);
  if (!standing)
    throw new HubError('SPACE_NOT_FOUND', `There is no space named ${space}`, {
      hint: 'List spaces with GET /api/spaces',
    });
  return standing;
}

/** May this caller declare here, and at what priority (capped for orchestrators)? */
function declaredPriority(standing: Standing, asked: number): { priority: number; capped: boolean } {
  const { role, space } = standing;
  if (role === 'owner' || role === 'admin') return { priority: asked, capped: false };
  if (role === 'orchestrator')
    return { priority: Math.min(asked, space.orchestratorPriority), capped: asked > space.orchestratorPriority };
  throw new HubError('FORBIDDEN', `Only the owner and orchestrators declare intents in space ${space.name}`, {
    hint: `The owner makes an agent an orchestrator with PUT /api/spaces/${space.name}/members/{handle}. ${READS_NEED_NO_TOKEN}`,
  });
}

/** An open or recently landed intent the declaration repeats, if any, as the answer to it. */
async function twinOf(
  reads: LockedReads,
  now: number,
  space: string,
  declaration: Declaration,
): Promise<Twin | undefined> {
  const [open, landed] = await Promise.all([
    reads.spaceTasks(
      space,
      [INTENT],
      { states: [...OPEN_STATES], includeArtifacts: false, historyLength: 0 },
      TWIN_SCAN,
    ),
    reads.spaceTasks(
      space,
      [INTENT],
      {
        states: ['TASK_STATE_COMPLETED'],
        statusAtOrAfter: now - TWIN_WINDOW_MS,
        includeArtifacts: false,
        historyLength: 0,
      },
      TWIN_SCAN,
    ),
  ]);
  const words = titleWords(declaration.title);
  const twin = [...open, ...landed].find((t) => {
    const facts = factsOf(t);
    return titleWords(facts.title) === words && footprintsOverlap(facts.footprint, declaration.footprint);
  });
  return twin && { twinOf: twin, note: repeats(twin, 'overlapping footprint') };
}

/**
 * The lock every declaration in a space opens under: the twin check reads the space's intents
 * there, so a twin declared at the same moment through another node is found by whichever comes second.
 */
const declaring = (space: string) => `intent:declare:${space}`;

/** Said first in the answer to a twin: which intent it repeats, and how to declare it anyway. */
const repeats = (twin: StoredTask, footprint: string) =>
  `This repeats intent ${twin.record.id} (same title, ${footprint}), so nothing new was declared; send "force": true in the data part to declare it anyway.`;

function openedSentence(id: string, space: string, priority: number, capped: boolean, asked: number): string {
  const cap = capped
    ? ` at priority ${priority} (you asked for ${asked}; orchestrators declare at most ${priority} here)`
    : '';
  return `Intent ${id} is open in space ${space}${cap}: no worker has claimed it yet. Follow it with GetTask or SubscribeToTask; CancelTask withdraws it.`;
}

/**
 * Work intents (the FireTrident way of working): an orchestrator declares work at a space's base
 * over A2A; workers claim it with a lease, report progress and land it over REST. Intents are
 * public to read. Twins (same title words, overlapping footprint) declare nothing.
 */

export function intentKind(quotas: Quotas, waitMs: number): Kind {
  /** The owner, the admin and the intent's declarer may withdraw it or answer its question. */
  const mayDirect = async (ctx: KindContext, task: StoredTask, what: string) => {
    requireToken(ctx.caller, what, READS_NEED_NO_TOKEN);
    const { role } = await standingIn(ctx, factsOf(task).space);
    if (
      role === 'owner' ||
      role === 'admin' ||
      (ctx.caller.kind === 'agent' && ctx.caller.handle === task.record.sender)
    )
      return;
    throw new HubError(
      'FORBIDDEN',
      `Only the space's owner, the intent's declarer or the admin may ${what.toLowerCase()}`,
      { hint: READS_NEED_NO_TOKEN },
    );
  };
  const mayClaim = (ctx: KindContext, space: string) => async (worker: string) => {
    const standing = await standingIn(ctx, space);
    if (standing.space.claim === 'open' || standing.role === 'worker' || standing.role === 'owner') return;
    throw new HubError(
      'FORBIDDEN',
      `${worker} may not claim intents in space ${space}: only its workers and owner do`,
      { hint: `The owner adds workers with PUT /api/spaces/${space}/members/${worker} {"role": "worker"}` },
    );
  };

  return {
    name: INTENT,
    visibility: { readers: 'everyone', listedAt: ['space'] }, // spaces are public to read
    blockingWaitMs: () => waitMs,

    async open(ctx: KindContext, message: Message): Promise<Opening | Twin> {
      const space = doorOf(ctx, 'space').name;
      requireToken(ctx.caller, 'Declaring an intent', READS_NEED_NO_TOKEN);
      const declaration = readDeclaration(message, space);
      const standing = await standingIn(ctx, space);
      const { priority, capped } = declaredPriority(standing, declaration.priority);
      const id = uuidv7();
      const facts: IntentFacts = {
        space,
        title: declaration.title,
        ...(declaration.why ? { why: declaration.why } : {}),
        footprint: declaration.footprint,
        ...(declaration.acceptance ? { acceptance: declaration.acceptance } : {}),
        priority,
      };
      return {
        kind: INTENT,
        id,
        contextId: space,
        ...(ctx.caller.kind === 'agent' ? { sender: ctx.caller.handle } : {}),
        visibility: 'public',
        state: 'TASK_STATE_SUBMITTED',
        statusMessage: said(openedSentence(id, space, priority, capped, declaration.priority)),
        metadata: { muster: facts } as unknown as JsonObject,
        rank: priority, // claimable intents are listed by it
        // Forced, it opens beside its twins, but still under the lock, so a twin checked at that moment sees it.
        underLock: {
          key: declaring(space),
          ...(declaration.force ? {} : { twinOf: (reads: LockedReads) => twinOf(reads, ctx.now, space, declaration) }),
        },
        // The exact same work is also refused by the store's open key (twins.ts), lock or no lock.
        ...(declaration.force
          ? {}
          : {
              openKey: {
                key: intentOpenKey(space, declaration.title, declaration.footprint),
                twinNote: (t: StoredTask) => repeats(t, 'same footprint'),
              },
            }),
        messages: [message],
        published: { message }, // the title, the why, the footprint and the checks, and whatever else it carries
        quotas: quotas.charge('intent.declare', callerName(ctx.caller), ctx.now),
      };
    },

    async followUp(ctx: KindContext, task: StoredTask, message: Message): Promise<Change> {
      const { record } = task;
      if (record.state !== 'TASK_STATE_INPUT_REQUIRED') {
        throw new HubError(
          'UNSUPPORTED_OPERATION',
          `Intent ${record.id} is ${record.state}; a message with its taskId only answers its question when it is TASK_STATE_INPUT_REQUIRED`,
          {
            hint: 'To change the work, cancel the intent (CancelTask) and declare it again',
            meta: { currentState: record.state },
          },
        );
      }
      await mayDirect(ctx, task, 'Answer the question');
      return {
        state: 'TASK_STATE_WORKING',
        statusMessage: said(`The declarer answered; ${record.holder} carries on with intent ${record.id}.`),
        messages: [message],
        artifacts: [],
        published: { message },
      };
    },

    async cancel(ctx: KindContext, task: StoredTask, reason: string | undefined): Promise<Change> {
      await mayDirect(ctx, task, 'Withdraw an intent');
      const why = reason ? `: ${reason}` : '';
      return {
        state: 'TASK_STATE_CANCELED',
        statusMessage: said(
          `Intent ${task.record.id} was withdrawn${why}. Its worker stops; declare it again to redo it.`,
        ),
        messages: [],
        artifacts: [],
        ...holdEnds(task.record, ctx.now),
      };
    },

    due: (task, _entries, now) => leaseExpired(task, now),
    describeHold: holdFacts,

    actions: {
      claim: (ctx, task, body) => claim(ctx, task, body, mayClaim(ctx, factsOf(task).space)),
      heartbeat,
      progress,
      'input-required': askInput,
      land,
      fail,
      release,
    },
  };
}

export const intentModule: KindModule<IntentSettings> = {
  name: INTENT,
  quotaRules: INTENT_QUOTA_RULES,
  settings: INTENT_SETTINGS,
  settingsFrom: intentSettingsFrom,
  opensAt: [{ door: 'space' }],
  cardSkills: (door, space) =>
    door !== 'space'
      ? []
      : [
          {
            id: DECLARE_INTENT,
            name: 'Declare a work intent',
            description:
              `SendMessage with a text part (first line the title, the rest why) and a data part {"footprint": ["paths or globs"], "acceptance"?: ["checks"], "priority"?: ${PRIORITY.min}-${PRIORITY.max}, "force"?: true}. ` +
              `The answer is the intent's task in space ${space} (contextId "${space}"): it waits for the intent to land or need input unless configuration.returnImmediately is true. ` +
              'A twin (same title words, overlapping footprint) of an open or just-landed intent declares nothing and answers that intent. Workers claim intents over REST; GetTask, ListTasks and SubscribeToTask need no token.',
            tags: ['intents', 'work', 'space'],
            examples: [
              'Add rate limiting to /api/links\nAnonymous callers can flood the links endpoints; cap them at 60 requests a minute.',
            ],
            inputModes: ['text/plain', 'application/json'],
            outputModes: ['text/plain', 'application/json'],
          },
        ],
  create: ({ quotas, settings }) => intentKind(quotas, settings?.intentWaitMs ?? 20_000),
  openKeyOf: storedOpenKey,
  restReads: ({ store, spaces, view, clock }) => {
    const listing = new IntentListing(store, spaces, view, clock);
    return [intentsPage(listing), heldIntentsPage(listing)];
  },
};
