// The page token lives in src/paging/, where the hub and identity both import it; this re-export
// keeps the imports of the hub's task services and the kinds working until they name it there.
export { cursorFrom, decodePageToken, encodePageToken, encodeRankToken, rankCursorFrom } from '../paging/page-token.js';
