// What the llm flows' tool tests start for one file: a local platform, the local OpenAI-compatible server and an
// upstream that files every report it is sent (the paid tool's endpoint).
import { type LlmServer, startLlmServer } from './llm-server.js';
import { type TestApi, reconfigurePlatform, startTestPlatform } from './platform.js';
import { type Upstream, startUpstream } from './resources.js';

export interface ToolFlowWorld {
  api: TestApi;
  llm: LlmServer;
  upstream: Upstream;
  stop(): Promise<void>;
}

export async function startToolFlowWorld(): Promise<ToolFlowWorld> {
  const api = await startTestPlatform();
  const [llm, upstream] = await Promise.all([startLlmServer(), startUpstream()]);
  upstream.respond((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ filed: true }));
  });
  return {
    api,
    llm,
    upstream,
    async stop() {
      await Promise.all([llm.close(), upstream.close()]);
      await api.stop();
    },
  };
}

/** After each test: no language model, as a platform started without one. */
export const unsetLanguageModel = () => reconfigurePlatform({ LLM_BASE_URL: undefined, LLM_MODEL: undefined });
