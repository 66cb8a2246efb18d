import http from 'node:http';
import https from 'node:https';
import { DeliveryFailed, TargetRefused } from './errors.js';
import { guardedLookup, hostOf, type TargetPolicy } from './target.js';

export interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** What answered a request: its status, head and (capped) body. */
export interface SendResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after any redirects. */
  url: string;
}

export interface Bounds {
  deadline: number;
  timeoutMs: number;
  maxBytes: number;
  /**
   * Read an event stream as it comes instead of whole: its chunks go to `onData` (the byte cap
   * then holds for other answers only), and the exchange ends when the stream does, or at
   * `until`, when the hub hangs up. `deadline` still bounds the wait for the answer's head.
   */
  stream?: { until: number; onData: (chunk: Buffer) => void; signal?: AbortSignal };
}

const isEventStream = (response: http.IncomingMessage) =>
  String(response.headers['content-type'] ?? '').startsWith('text/event-stream');

/** One request and its whole (capped) response, without following redirects. */
export function exchange(
  { url, method, headers, body }: Exchange,
  policy: TargetPolicy,
  bounds: Bounds,
): Promise<SendResult> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const outgoing =
      body === undefined ? headers : Object.assign({}, headers, { 'content-length': String(body.length) });
    const request = transport.request({
      protocol: url.protocol,
      hostname: hostOf(url),
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname + url.search,
      method,
      headers: outgoing,
      agent: false, // a fresh socket each time: no pooled connection skips the connect-time check
      lookup: guardedLookup(policy),
    });

    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(new DeliveryFailed('timeout', `${url.origin} did not answer completely within ${bounds.timeoutMs} ms`)),
      Math.max(0, bounds.deadline - Date.now()),
    );
    const tooLarge = (): DeliveryFailed =>
      new DeliveryFailed(
        'too-large',
        `The answer from ${url.origin} is larger than ${bounds.maxBytes} bytes; Muster reads at most that much`,
      );

    request.on('error', (error) => fail(asFailure(error, url)));
    request.on('response', (response) => {
      const { stream } = bounds;
      if (stream && isEventStream(response) && (response.statusCode ?? 0) < 300) return follow(response, stream);
      if (Number(response.headers['content-length']) > bounds.maxBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bounds.maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      response.on('error', (error) => fail(asFailure(error, url)));
      response.on('close', () => {
        if (!response.complete)
          fail(
            new DeliveryFailed(
              'network',
              `${url.origin} closed the connection before the answer was complete`,
              'ECONNRESET',
            ),
          );
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          url: url.href,
        });
      });
    });
    /** An event stream, passed on as it comes; its end, a cut after it began, or `until` ends the exchange. */
    function follow(response: http.IncomingMessage, stream: NonNullable<Bounds['stream']>) {
      clearTimeout(timer);
      const done = () => {
        if (settled) return;
        settled = true;
        clearTimeout(hold);
        stream.signal?.removeEventListener('abort', done);
        request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.alloc(0), url: url.href });
      };
      const hold = setTimeout(done, Math.max(0, stream.until - Date.now()));
      if (stream.signal?.aborted) return done();
      stream.signal?.addEventListener('abort', done, { once: true });
      response.on('data', (chunk: Buffer) => stream.onData(chunk));
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    }
    request.end(body);
  });
}

function asFailure(error: Error, url: URL): Error {
  if (error instanceof TargetRefused || error instanceof DeliveryFailed) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new DeliveryFailed('network', `Could not reach ${url.origin}: ${code ?? error.message}`, code);
}
