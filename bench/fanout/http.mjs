// The fan-out bench's calls, with node:http (one socket per stream, under the driver's control):
// a request, the JSON-RPC bodies it sends, and SSE streams read event by event.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const agentFor = (maxSockets) => new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 256 });

/** One request with node:http; resolves { status, headers, json, text }. */
export function request(agent, port, method, urlPath, { token, body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode, headers: res.headers, json, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const rpcBody = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });
export const sendParams = (text) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
// A SendMessage nobody answers would wait out the hub's blocking wait (A2A 1.0 §3.2.2): these ask to be answered at once.
export const sendNowParams = (text) => ({ ...sendParams(text), configuration: { returnImmediately: true } });

/**
 * Incremental SSE parser: feed it chunks, it calls onEvent({ id, data, comment }) per event.
 * Only what Muster writes is handled: `id:`, `data:` (one line) and `:` comment lines.
 */
function sseParser(onEvent) {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id;
      let data;
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = Number(line.slice(3).trim());
        else if (line.startsWith('data:')) data = line.slice(5).trimStart();
      }
      if (data === undefined) {
        onEvent({ comment: true });
        continue;
      }
      onEvent({ id, data });
    }
  };
}

/**
 * Opens an SSE stream (a JSON-RPC POST answered with text/event-stream). Resolves once the
 * first event arrived (or rejects on a non-SSE answer / socket error); `onEvent(event, t)` sees
 * every event with its receive time (performance.now()).
 */
export function openStream(agent, port, urlPath, token, body, onEvent, onEnd) {
  return new Promise((resolve, reject) => {
    let first = true;
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: urlPath,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (!String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () =>
            reject(new Error(`HTTP ${res.statusCode} ${res.headers['content-type']}: ${text.slice(0, 300)}`)),
          );
          return;
        }
        res.setEncoding('utf8');
        const parse = sseParser((event) => {
          const t = performance.now();
          if (event.comment) return;
          onEvent(event, t);
          if (first) {
            first = false;
            resolve({ req, res });
          }
        });
        res.on('data', parse);
        res.on('end', () => {
          onEnd?.('end');
          if (first) reject(new Error('stream ended before its first event'));
        });
        res.on('close', () => {
          onEnd?.('close');
          if (first) reject(new Error('stream closed before its first event'));
        });
        res.on('error', (e) => {
          onEnd?.(`error ${e.message}`);
          if (first) reject(e);
        });
      },
    );
    req.on('error', (e) => {
      onEnd?.(`error ${e.message}`);
      if (first) reject(e);
    });
    req.end(JSON.stringify(body));
  });
}
