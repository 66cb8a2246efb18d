/** The skill that opens a call, in a module that imports nothing: the kind opens at it, and the CLI (which loads no hub code) sends it. */
export const CALL_OPEN = 'call.open';
