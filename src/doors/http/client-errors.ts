/**
 * Requests node's HTTP parser refuses, or that do not arrive in time, answered in the hub's error
 * shape instead of Fastify's or node's own body. Node reports them on the socket ('clientError'),
 * before or in the middle of a request, so the answer is written on the socket itself.
 */
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import type { HttpLimits } from '../../config/index.js';
import { HubError } from '../../errors/hub-error.js';
import type { Logger } from '../../observability/logger.js';
import type { HubMetrics } from '../../observability/metrics.js';
import { answeredOnSocket, newRequestId, trackedRequestId } from './request-log.js';
import { restErrorBody, restStatus } from './errors.js';

/**
 * What the hub answers: the parser's refusals and the request timeout. Anything else is the
 * connection failing (a reset, a broken pipe), and a client that closed its side in the middle of
 * a request (HPE_INVALID_EOF_STATE) has left too: nothing is answered to those.
 */
const answerable = (code: string | undefined): boolean =>
  code === 'ERR_HTTP_REQUEST_TIMEOUT' ||
  (code !== undefined && code.startsWith('HPE_') && code !== 'HPE_INVALID_EOF_STATE');

/** What a refusal before any request is counted as in muster_requests_total (its `method` label). */
const UNREAD_METHOD = '(unread)';

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The hub's error for what node refused: the parser's error code, or its request timeout. */
function refusalOf(error: ConnectionError, limits: HttpLimits): HubError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new HubError(
      'HEADERS_TOO_LARGE',
      `The request line and header fields are larger than ${maxHeaderSize} bytes`,
      {
        hint: `Send at most ${maxHeaderSize} bytes of request line and headers; put large data in the body`,
      },
    );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new HubError(
      'REQUEST_TIMEOUT',
      `The request did not arrive in time: the hub waits ${seconds(limits.headersTimeoutMs)} for a request's headers and ${seconds(limits.requestTimeoutMs)} for all of it`,
      {
        hint: 'Send each request whole and at once; the connection was closed',
      },
    );
  }
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') {
    return new HubError('INVALID_REQUEST', 'The hub does not speak HTTP/2 in clear text', {
      hint: 'Send HTTP/1.1, or HTTP/2 through a proxy that speaks HTTP/1.1 to the hub',
    });
  }
  // The parser's reason is its own fixed text ("Invalid character in chunk size"), never the client's bytes.
  const reason = (error as ConnectionError & { reason?: string }).reason ?? error.code ?? 'unknown';
  return new HubError('INVALID_REQUEST', `The request is not valid HTTP/1.1: ${reason}`, {
    hint: 'Send a well-formed HTTP/1.1 request: a request line, headers, then a body with a matching Content-Length or correct chunked encoding (not both)',
  });
}

/** A whole HTTP answer as bytes for the socket: the hub's error body, and the connection closed after it. */
function rawAnswer(error: HubError, requestId: string): string {
  const status = restStatus(error);
  const body = JSON.stringify(restErrorBody(error));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\nx-request-id: ${requestId}\r\n\r\n${body}`;
}

/**
 * Fastify's clientErrorHandler. A connection that failed, that the client left, or that can no
 * longer be written to is simply closed: the request tracker logs a request in flight on it as
 * left by the client. Otherwise the answer goes on the socket, unless an answer there has already
 * begun. A request in flight gets its one request line with this status; a refusal before any
 * request was read gets one line of its own and is counted as UNREAD_METHOD.
 */
export function clientErrorHandler(
  limits: HttpLimits,
  logger: Logger,
  metrics: HubMetrics,
): (error: ConnectionError, socket: Socket) => void {
  return (error, socket) => {
    if (!answerable(error.code) || !socket.writable) return void socket.destroy();
    // node's own check before it writes its answer: the answer of the request in flight, if any.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (inFlight?.headersSent) return void socket.destroy();
    const refusal = refusalOf(error, limits);
    const status = restStatus(refusal);
    const requestId = (inFlight && trackedRequestId(inFlight)) ?? newRequestId();
    socket.write(rawAnswer(refusal, requestId));
    socket.destroy();
    if (inFlight && answeredOnSocket(inFlight, status)) return;
    metrics.request('rest', UNREAD_METHOD, status, 0);
    logger.info({ reqId: requestId, status, reason: error.code }, 'request refused before it was read');
  };
}
