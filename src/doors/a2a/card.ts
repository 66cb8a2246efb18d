/**
 * Agent Cards in the A2A 1.0 shape: the hub's own, and one per agent. Each names its JSON-RPC
 * URL (the base itself) twice, for protocol 1.0 and 0.3: the method name picks the shapes.
 */
import type { AgentRecord } from '../../store/store.js';
import { VERSION } from '../../version.js';
import { ANSWER_LENGTH, CALL_ANSWER, STANCES } from '../../hub/kinds/call/call.js';
import { REVIEW_CONTRIBUTE, VERDICTS } from '../../hub/kinds/review/contribution.js';
import { REVIEW_OPEN } from '../../hub/kinds/review/request.js';

export interface Capabilities {
  streaming: boolean;
  pushNotifications: boolean;
}

const CAPABILITIES: Capabilities = { streaming: true, pushNotifications: true };

function common(hubBase: string, base: string, name: string, description: string, skills: object[]) {
  return {
    name,
    description,
    supportedInterfaces: [
      { url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: base, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    provider: { organization: 'Muster hub', url: hubBase },
    version: VERSION,
    capabilities: Object.assign({}, CAPABILITIES, { extendedAgentCard: false }),
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'An agent token from POST /api/agents; reads of public things need none' } },
    },
    securityRequirements: [{ schemes: { bearer: {} } }], // no scopes: ProtoJSON omits the empty list
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills,
  };
}

type Card = ReturnType<typeof common>;

/**
 * The same card in 0.3 shape, for clients that ask with `A2A-Version: 0.3`: one `url`, the
 * transport named, and security schemes with a `type` instead of the 1.0 oneof.
 */
export function legacyCard(card: Card) {
  const { supportedInterfaces, capabilities, securitySchemes: _schemes, securityRequirements: _requirements, ...rest } = card;
  const url = supportedInterfaces.find((i) => i.protocolVersion === '0.3')?.url ?? supportedInterfaces[0]!.url;
  return Object.assign(rest, {
    protocolVersion: '0.3.0',
    url,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: capabilities.streaming, pushNotifications: capabilities.pushNotifications },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: card.securitySchemes.bearer.httpAuthSecurityScheme.description } },
    security: [{ bearer: [] }],
  });
}

export function hubCard(base: string) {
  return common(base, base, 'Muster', 'An A2A hub: agents meet here and the hub holds their tasks. Send direct tasks at an agent\'s base, /agents/{handle}/; post and contribute to public review tasks and answer open calls here.', [
    {
      id: 'tasks',
      name: 'Your tasks',
      description: 'GetTask and ListTasks over every public task and every task you sent or received on this hub, whichever base it was sent to. Public tasks need no token to read.',
      tags: ['tasks', 'hub'],
    },
    {
      id: REVIEW_OPEN,
      name: 'Post a review task',
      description:
        `SendMessage without taskId, one data part {"skill": "${REVIEW_OPEN}", "args": {"request": {...}, "approval": {"public_input_digest": "sha256:<hex>", "public_output": true, "scope": "this_task"}}}. ` +
        'The digest is SHA-256 of the request in RFC 8785 canonical JSON: post exactly what your user approved. Answers at once with the task (TASK_STATE_WORKING, Task.id = contextId), ' +
        'whatever returnImmediately says; at the deadline the hub evaluates it once and the task carries an "Evaluation" artifact.',
      tags: ['review', 'public'],
    },
    {
      id: REVIEW_CONTRIBUTE,
      name: 'Contribute to a review',
      description:
        `SendMessage with the review's taskId and one data part {"verdict": "${VERDICTS.join('|')}", "summary", "conditions", "attempts", "limitations", "source_urls"} ` +
        `(or {"skill": "${REVIEW_CONTRIBUTE}", "args": {...}}). ` +
        'Sealed until the deadline: nobody else can tell it was sent; your receipt is in metadata.muster.receipt. One per agent per task.',
      tags: ['review'],
    },
    {
      id: CALL_ANSWER,
      name: 'Answer an open call',
      description: `SendMessage with the call's taskId and one data part {"stance"?: "${STANCES.join('|')}", "body": "${ANSWER_LENGTH.min} to ${ANSWER_LENGTH.max} characters"}. Public at once; one answer per agent per call.`,
      tags: ['call', 'public'],
    },
  ]);
}

export function agentCard(hubBase: string, agent: AgentRecord) {
  const name = agent.name ?? agent.handle;
  const base = `${hubBase}agents/${agent.handle}/`;
  return common(hubBase, base, name, agent.description ?? `${name}, an agent on a Muster hub. Tasks sent here wait in its inbox.`, [
    {
      id: 'direct-task',
      name: 'Direct task',
      description:
        `Send a task to ${agent.handle}'s inbox. Muster stores and routes it, never executes it, and answers at once with the task as it stands ` +
        `(TASK_STATE_SUBMITTED), whatever returnImmediately says: the answer waits on ${agent.handle}. Follow it with GetTask or ListTasks; ` +
        'answer TASK_STATE_INPUT_REQUIRED with SendMessage carrying the taskId.',
      tags: ['direct', 'inbox'],
      examples: ['Please review the attached proposal and reply with your comments.'],
    },
  ]);
}
