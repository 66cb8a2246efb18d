/** What an answer to a call may say, in a module that imports nothing: the kind checks it, and the MCP tool (which loads no hub code) describes it. */
export const STANCES = ['support', 'oppose', 'mixed', 'neutral'] as const;

/** An answer's body, in characters. */
export const ANSWER_LENGTH = { min: 20, max: 4000 } as const;

/** The answer form Cairn's clients send: `schema` named, and the author's approval of its publication. */
export const CALL_RESPONSE_SCHEMA = 'cairn.call.response/0.1';
