/**
 * What the 1.0 cards of the JSON-RPC dialects share: Muster as provider, the hub's version, no
 * streaming, push or extended card, and one bearer scheme taking a Muster agent token, whose use
 * each dialect words in its own terms.
 */
import { VERSION } from '../version.js';

export function plainCardParts(hubBase: string, tokenUse: string) {
  return {
    provider: { organization: 'Muster hub', url: hubBase },
    version: VERSION,
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: tokenUse } } },
    securityRequirements: [{ schemes: { bearer: { list: ['agent'] } } }],
  };
}
