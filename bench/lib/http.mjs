// The per-store drivers' calls: one HTTP request or JSON-RPC call with fetch, and a pool running
// jobs a few at a time.
/** One HTTP request with fetch, JSON in and out: `{ status, body, text }` (body undefined when not JSON). */
export async function http(method, url, { token, body } = {}) {
  const headers = {
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const res = await fetch(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text };
}

/** The body of `request` (an http() promise), or throws unless it answered `status`. */
export async function expectStatus(what, status, request) {
  const res = await request;
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

/** One JSON-RPC call; its `result`, or throws with the answer. */
export async function rpc(url, method, params, token) {
  const res = await http('POST', url, { token, body: { jsonrpc: '2.0', id: 1, method, params } });
  if (res.status !== 200 || !res.body || res.body.error || res.body.result === undefined) {
    throw new Error(`${method} at ${url}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  }
  return res.body.result;
}

/** Runs `count` jobs (`job(i)`, i from 0), `width` at a time. */
export async function pool(count, width, job) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}
