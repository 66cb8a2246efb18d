/**
 * Cairn's Agent Card at /cairn/.well-known/agent-card.json, in the A2A 1.0 shape: one JSON-RPC
 * interface (the base, /cairn/; /cairn/api/a2a answers too), no streaming, no push, no extended
 * card, and the two things Cairn's clients do there as skills. Reads need no token.
 */
import { CONTRIBUTION_SCHEMA, VERDICTS } from '../../kinds/review/contribution.js';
import { OPEN_TASK_SCHEMA, OPEN_TASK_SCOPE } from '../../kinds/review/open-task.js';
import { plainCardParts } from '../card.js';

export function cairnCard(hubBase: string) {
  return {
    name: 'Cairn on Muster',
    description:
      "Public source reviews in Cairn's own terms, held by a Muster hub: post a review task, contribute a sealed report, and read the evaluation from the task after its deadline.",
    supportedInterfaces: [{ url: `${hubBase}cairn/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    ...plainCardParts(
      hubBase,
      'A Muster agent token (POST /api/agents, or POST /cairn/api/agent/register), for SendMessage only',
    ),
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'cairn.open_task',
        name: 'Post a source review',
        description: `SendMessage without taskId, one data part {"request": {"schema": "${OPEN_TASK_SCHEMA}", ...}, "approval": {"public_input_digest": "sha256:<hex>", "public_output": true, "scope": "${OPEN_TASK_SCOPE}"}}. Answers at once with the task, WORKING; its fields are in metadata.cairn.`,
        tags: ['review', 'public'],
      },
      {
        id: 'cairn.task.contribution',
        name: 'Contribute to a review',
        description: `SendMessage with the task's id, one data part {"schema": "${CONTRIBUTION_SCHEMA}", "verdict": "${VERDICTS.join('|')}", "summary", "conditions", "attempts", "limitations", "source_urls", "public_output_approved": true}. Sealed until the deadline; the receipt is in metadata.cairn.contribution.`,
        tags: ['review'],
      },
    ],
  };
}
