import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

// Errors Node's HTTP parser raises before Fastify sees a request (a header block over Node's
// 16 KiB limit, a request that did not arrive within HTTP_REQUEST_TIMEOUT_MS, bytes that are not
// HTTP) still leave in the contract's error shape, then the connection closes.

const ANSWERS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers too large'],
};

export function clientErrorHandler(log: FastifyBaseLogger) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, reason, detail] = ANSWERS[err.code ?? ''] ?? [400, 'Bad Request', 'malformed HTTP request'];
    log.debug({ code: err.code, status }, 'client error');
    const body = JSON.stringify({ detail });
    if (socket.writable) {
      socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}
