// Scripts for tests: small programs in both runtimes and shortcuts to a created, deployed or executed script.
import type { ApiResponse, TestApi, TestUser } from './platform.js';

export const rest = '/api/sdk/v1/scripts';
export const sdk = (operation: string) => `/api/sdk/v1/scripts/${operation}`;

export const nodeEcho = (label: string) => `export async function handler(event, context) {
  console.log('running ${label}');
  return { label: '${label}', data: event.data, trigger: event.trigger.type, scriptId: context.scriptId };
}`;

export const pythonEcho = (label: string) => `def handler(event, context):
    print("running ${label}")
    return {"label": "${label}", "data": event["data"], "trigger": event["trigger"]["type"], "scriptId": context["scriptId"]}
`;

function ok(response: ApiResponse, status: number, what: string): ApiResponse {
  if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${response.text}`);
  return response;
}

export interface GivenScript {
  id: string;
  apiKey: string;
}

export async function givenScript(api: TestApi, owner: TestUser, body: Record<string, unknown> = {}): Promise<GivenScript> {
  const created = ok(
    await api
      .as(owner.apiKey)
      .post(rest, { name: `script-${Math.random().toString(36).slice(2, 8)}`, description: 'a test script', code: nodeEcho('v1'), ...body }),
    201,
    'create',
  );
  return { id: created.body.data.id, apiKey: created.body.data.apiKey };
}

export async function givenDeployed(api: TestApi, owner: TestUser, body: Record<string, unknown> = {}): Promise<GivenScript> {
  const script = await givenScript(api, owner, body);
  ok(await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: script.id }), 200, 'deploy');
  return script;
}

export async function execute(api: TestApi, who: TestUser, scriptId: string, data: Record<string, unknown> = {}): Promise<ApiResponse> {
  return api.as(who.apiKey).post(sdk('executeScript'), { scriptId, data });
}

/** Published and in the marketplace: executed once (publish needs a successful run), then published. */
export async function givenListed(api: TestApi, owner: TestUser, body: Record<string, unknown> = {}): Promise<GivenScript> {
  const script = await givenScript(api, owner, body);
  ok(await execute(api, owner, script.id), 200, 'execute');
  ok(await api.as(owner.apiKey).post(`${rest}/${script.id}/publish`, {}), 200, 'publish');
  return script;
}

export const getScript = async (api: TestApi, who: TestUser, scriptId: string) => (await api.as(who.apiKey).post(sdk('getScript'), { scriptId })).body.data;
