// A real OpenAI-compatible chat completions server on 127.0.0.1 for LLM flows: it records every request and
// answers each with the next scripted turn (tool calls, or a final answer).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  authorization?: string;
}

/** A turn decides the answer from the request: `{toolCalls}` or `{content}`. */
export type Turn = (request: ChatRequest) => { content?: string; toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }> };

export interface LlmServer {
  baseUrl: string;
  requests: ChatRequest[];
  script(turns: Turn[]): void;
  close(): Promise<void>;
}

export async function startLlmServer(): Promise<LlmServer> {
  const requests: ChatRequest[] = [];
  let turns: Turn[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = { ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest), authorization: request.headers.authorization };
      requests.push(body);
      const turn = turns.shift();
      if (request.url !== '/v1/chat/completions' || !turn) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `unexpected request ${request.url}` } }));
        return;
      }
      const answer = turn(body);
      const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
        id: `call_${requests.length}_${index}`,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: body.model,
          choices: [
            {
              index: 0,
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
              message: { role: 'assistant', content: answer.content ?? null, ...(toolCalls.length && { tool_calls: toolCalls }) },
            },
          ],
          usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
        }),
      );
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script(next) {
      turns = next;
    },
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
