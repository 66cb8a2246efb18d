// Attributes a CPU profile's samples to the parts of the request path, for bench/profile.mjs.
// A sample goes to the innermost frame on its stack that names a part: a hash taken inside the
// token check counts as the token check, a JSON.parse inside the body parser as body parsing.
import { readFileSync } from 'node:fs';

/** The parts, tried in order against each frame ("<function> <file>:<line>", the file relative to dist/). */
export const PARTS = [
  ['token check', /^[^ ]* (identity\/|doors\/http\/context\.js)/],
  ['request ids, request log', /^[^ ]* doors\/http\/request-log/],
  ['metrics', /^[^ ]* observability\/metrics|npm:prom-client/],
  ['JSON-RPC envelope, dispatch', /^[^ ]* (doors\/a2a\/(jsonrpc|rpc-route|methods)|operations\/operations)\.js/],
  ['validation of what was sent', /^[^ ]* (a2a\/(validate|schemas|zod-issues)|operations\/requests)\.js|npm:zod/],
  ['the view', /^[^ ]* hub\/view/],
  ['store: SQLite statements, commit', /^[^ ]* store\/sqlite\/|npm:better-sqlite3/],
  ['store: PostgreSQL statements, pg', /^[^ ]* store\/postgres\/|npm:pg(-[a-z]+)?$|npm:pg(-[a-z]+)?:/],
  ['the task (hub, kinds, caches)', /^[^ ]* (hub|kinds|store|delivery|events|scheduler)\//],
  // The lane's send is JSON.stringify and the head; node:http's own frames under it count as node:http.
  ['answer serialization', /^serialize npm:fastify|^[^ ]* (wire|a2a\/legacy)|^send doors\/http\/lane\.js/],
  ['body parsing', /^(rawBody|onEnd|run|ContentTypeParser\.run) npm:fastify|^parseJsonBody /],
  ['JSON-RPC lane: matching, reading the body', /^[^ ]* doors\/http\/lane\.js/],
  ['guard, hooks, error mapping', /^[^ ]* doors\/http\//],
  ['routing', /npm:find-my-way/],
  ['fastify request and reply', /npm:(fastify|avvio|@fastify)/],
];

/** Leaf frames that are not JavaScript: the collector, the engine, system calls on sockets. */
const LEAVES = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'engine (native, unattributed)',
  writev: 'socket writes',
  read: 'socket reads',
  '(idle)': 'idle',
};

const NODE_HTTP = /^[^ ]* node:(_http_|net|internal\/streams|internal\/stream_base|events)/;

const frameName = ({ functionName, url, lineNumber }) => {
  const file = url.includes('/node_modules/')
    ? url.replace(/.*\/node_modules\/((@[^/]+\/)?[^/]+).*/, 'npm:$1')
    : url.replace(/^.*?\/[^/]*dist\//, ''); // dist/ of whichever build ran
  return `${functionName || '(anonymous)'} ${file}:${lineNumber}`;
};

/** The part one sample belongs to. */
function partOf(nodes, parents, id) {
  const leaf = nodes.get(id).callFrame;
  if (!leaf.url && LEAVES[leaf.functionName]) return LEAVES[leaf.functionName];
  for (let at = id; at !== undefined; at = parents.get(at)) {
    const frame = frameName(nodes.get(at).callFrame);
    const part = PARTS.find(([, pattern]) => pattern.test(frame));
    if (part) return part[0];
    if (NODE_HTTP.test(frame)) return 'node:http and sockets (JS)';
  }
  return 'other (timers, microtasks)';
}

/**
 * Microseconds per request of each part, over the samples taken between `from` and `to`
 * (microseconds of the monotonic clock, as process.hrtime gives it).
 */
export function costsPerRequest(profileFile, { from, to, requests }) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  const spent = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    const part = partOf(nodes, parents, id);
    spent.set(part, (spent.get(part) ?? 0) + delta);
  });
  return Object.fromEntries([...spent].map(([part, us]) => [part, us / requests]));
}
