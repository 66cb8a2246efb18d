/**
 * KLYPIX's Agent Card, A2A 0.3: `url` is the JSON-RPC endpoint (this base), streaming is on, and
 * the skills are KLYPIX's own ids, each listing its arguments in KLYPIX's names with an example
 * data part. The board file it answers is Muster's own format and media type (docs/memory-boards.md).
 */
import { BOARD_MEDIA_TYPE } from '../../kinds/memory/board-file.js';
import { VERSION } from '../../version.js';
import { KLYPIX_SKILLS } from './skills.js';

export function klypixCard(hubBase: string, base: string) {
  return {
    protocolVersion: '0.3.0',
    name: 'KLYPIX memory node on Muster',
    description:
      'Shared memory boards (canvases) kept by a Muster hub, spoken the KLYPIX way: send a data part {"skill", "args"} naming one of the skills below, or ask in plain words ("What do we know about auth?"). Every call is a task private to its caller, answered at once.',
    url: base,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: base, transport: 'JSONRPC' }],
    provider: { organization: 'Muster hub', url: hubBase },
    version: VERSION,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'A Muster agent token from POST /api/agents; every call needs one',
      },
    },
    security: [{ bearer: [] }],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain', BOARD_MEDIA_TYPE],
    skills: KLYPIX_SKILLS.map((s) => ({
      id: s.id,
      name: s.name,
      description: `${s.description} Args: ${s.args}.`,
      tags: ['memory', 'klypix'],
      examples: [JSON.stringify(s.example)],
      inputModes: ['application/json', 'text/plain'],
      outputModes: s.answersBoard
        ? [BOARD_MEDIA_TYPE, 'text/plain', 'application/json']
        : ['text/plain', 'application/json'],
    })),
  };
}
