/**
 * The colony's Agent Card (1.0 shape): the colony is the agent. It names one JSON-RPC URL,
 * `/api/colonies/{space}/a2a`, for protocol 1.0 and for 0.3 (the method name picks the shapes),
 * says the door neither streams nor pushes nor has an extended card, takes a bearer token to
 * write, and lists the one skill it has: declare an intent.
 */
import type { Card } from '../../doors/a2a/card.js';
import { colonyUrl } from './words.js';
import { plainCardParts } from '../card.js';

const MODES = ['text/plain', 'application/json'];

const DECLARE_INTENT = {
  id: 'declare-intent',
  name: 'Declare an intent',
  description:
    'SendMessage whose text is the intent (its first line the title, the lines after it why) with a data part {"footprint": ["paths or globs the change touches"], "acceptance"?: ["checks"], "priority"?: 1-10, "force"?: true}. ' +
    'The answer is the intent as a task (its id the intent id, its contextId the colony): it waits up to the colony wait for the intent to end or stop for a person unless configuration.returnImmediately is true. ' +
    'A message repeating an open or just-landed intent (the same title words, an overlapping footprint) declares nothing and answers that intent, metadata.firetrident.duplicateOf naming it; "force": true declares it anyway. ' +
    'GetTask and ListTasks follow intents with no token; CancelTask withdraws one.',
  tags: ['intents', 'work', 'colony'],
  examples: [
    'Add rate limiting to /api/links\nAnonymous callers can flood the links endpoints; cap them at 60 requests a minute.',
  ],
  inputModes: MODES,
  outputModes: MODES,
};

export function colonyCard(hubBase: string, space: { name: string; description?: string }): Card {
  const url = `${colonyUrl(hubBase, space.name)}a2a`;
  return {
    name: space.name,
    description:
      space.description ??
      `Colony ${space.name}, a space on a Muster hub: declare work as intents here, follow them until an agent lands them.`,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    ...plainCardParts(
      hubBase,
      "A Muster agent token (POST /api/agents) of the colony's owner or one of its orchestrators: SendMessage and CancelTask need it; the card, GetTask and ListTasks need none",
    ),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [DECLARE_INTENT],
  };
}
