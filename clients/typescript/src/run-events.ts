// Following a run live: the server-sent events of GET /api/sdk/v1/executions/{executionId}/events as an async iterator.
// It reconnects with Last-Event-ID whenever a stream ends before the run did (streams end by themselves after a while),
// so the caller sees each event once, in order, until `end`. No Node-only imports: browsers use it too.
import { type ClientOptions, UnreachableError, errorOf } from './index.js';

export interface StepState {
  name: string;
  type: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  error?: { code: string; message: string };
  wakeAt?: string;
  childExecutionId?: string;
}

export type RunEvent = { id: string } & (
  | { type: 'log'; index: number; text: string; invocation: number; step?: string }
  | { type: 'steps'; steps: StepState[] }
  | { type: 'status'; status: string }
  | { type: 'end'; status: string; error: { code: string; message: string } | null; duration: number; endedAt: string | null }
);

export interface FollowOptions {
  /** Resume after this event (the `id` of the last one handled). */
  lastEventId?: string;
  signal?: AbortSignal;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** One SSE frame's fields (comments and unknown fields left out). */
function parseFrame(frame: string): { event?: string; id?: string; data: string; retry?: number } {
  const parsed: { event?: string; id?: string; data: string; retry?: number } = { data: '' };
  for (const line of frame.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') parsed.event = value;
    else if (field === 'id') parsed.id = value;
    else if (field === 'data') parsed.data += parsed.data ? `\n${value}` : value;
    else if (field === 'retry' && /^\d+$/.test(value)) parsed.retry = Number(value);
  }
  return parsed;
}

/** The run's events from `lastEventId` (or its start) until `end`; a refusal (NOT_FOUND, RATE_LIMITED) throws PlatformError. */
export async function* followRun(client: ClientOptions, executionId: string, options: FollowOptions = {}): AsyncGenerator<RunEvent> {
  const url = `${client.baseUrl.replace(/\/+$/, '')}/api/sdk/v1/executions/${encodeURIComponent(executionId)}/events`;
  let lastEventId = options.lastEventId;
  let retryMs = 1000;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (client.apiKey) headers['X-API-Key'] = client.apiKey;
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    let response: Response;
    try {
      response = await (client.fetch ?? globalThis.fetch)(url, { headers, signal: options.signal });
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') return;
      throw new UnreachableError(client.baseUrl, error);
    }
    if (!response.ok || !response.body) {
      const body = await response.json().catch(() => undefined);
      throw errorOf(response.status, body, response.headers.get('x-request-id'));
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value.replace(/\r\n?/g, '\n');
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const frame = parseFrame(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          if (frame.retry !== undefined) retryMs = frame.retry;
          if (!frame.event || frame.id === undefined) continue;
          lastEventId = frame.id;
          const event = { type: frame.event, id: frame.id, ...(JSON.parse(frame.data) as object) } as RunEvent;
          yield event;
          if (event.type === 'end') return;
        }
      }
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') return;
      // A stream cut off midway is resumed like one that ended.
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    await pause(retryMs, options.signal);
  }
}
