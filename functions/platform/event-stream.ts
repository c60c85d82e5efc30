// A response sent while it is produced: server-sent events (text/event-stream). The local server writes each chunk as
// it comes. A Lambda behind API Gateway's HTTP API cannot stream its answer, so on AWS the chunks are gathered and sent
// as one body when they end: the producer then ends its stream early (a long poll), and the client reconnects.
import type { HttpResult } from './middlewares/request-state.js';
import { settings } from './settings.js';

/** Where a result carries its chunks for the local server (a Lambda result has no such field). */
export const streamedChunks = Symbol('streamedChunks');

/** The chunks of a body; `stopped` aborts when the client went away, so the producer stops and frees what it holds. */
export type Chunks = (stopped: AbortSignal) => AsyncIterable<string>;

export type StreamedResult = HttpResult & { [streamedChunks]?: Chunks };

export const eventStreamHeaders = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  // Proxies (nginx, CloudFront) pass each event on instead of holding the body.
  'X-Accel-Buffering': 'no',
};

/** A handler's answer whose body is `chunks`; the envelope middleware turns it into the response. */
export class StreamReply {
  constructor(readonly chunks: Chunks) {}
}

/** Whether this process can send a body while producing it (the local server), or sends it whole (Lambda). */
export const canStream = () => settings.mode === 'local';

/** The result of a StreamReply: its chunks attached locally, gathered into the body on AWS. */
export async function streamedResult(reply: StreamReply, headers: Record<string, string>): Promise<StreamedResult> {
  const result: StreamedResult = { statusCode: 200, headers: { ...headers, ...eventStreamHeaders } };
  if (canStream()) return Object.assign(result, { body: '', [streamedChunks]: reply.chunks });
  let body = '';
  for await (const chunk of reply.chunks(new AbortController().signal)) body += chunk;
  return { ...result, body };
}
