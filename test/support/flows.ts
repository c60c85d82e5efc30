// Flows for tests: valid inputs, shortcuts to created flows, and reading a flow over HTTP.
import type { ApiResponse, TestApi, TestUser } from './platform.js';

export const flowsPath = (operation: string) => `/api/sdk/v1/flows/${operation}`;

export const timeFlowInput = (scriptId: string, overrides: Record<string, unknown> = {}) => ({
  title: 'Weekday report',
  description: 'Sends the report every weekday at 9',
  schedule: '0 9 * * 1-5',
  scriptId,
  ...overrides,
});

export const eventFlowInput = (overrides: Record<string, unknown> = {}) => ({
  title: 'Mail from my boss',
  description: 'When an e-mail from my boss arrives, summarise it',
  eventType: 'mailapp.email_received',
  conditions: { operator: 'AND', conditions: [{ field: 'from', operator: 'equals', value: 'boss@acme.example' }] },
  prompt: 'Summarise the e-mail in two sentences.',
  ...overrides,
});

/** A model configuration (read per call): without one llm flows carry a warning. Nothing answers there, so runs of such flows fail. */
export const unreachableModelEnv = { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'test-model' };

function ok(response: ApiResponse, what: string): ApiResponse {
  if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${response.text}`);
  return response;
}

export async function givenTimeFlow(api: TestApi, user: TestUser, scriptId: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return ok(await api.as(user.apiKey).post(flowsPath('createTimeFlow'), timeFlowInput(scriptId, overrides)), 'createTimeFlow').body.data;
}

export async function givenEventFlow(api: TestApi, user: TestUser, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return ok(await api.as(user.apiKey).post(flowsPath('createEventFlow'), eventFlowInput(overrides)), 'createEventFlow').body.data;
}

export async function getFlow(api: TestApi, user: TestUser, assignmentId: string): Promise<Record<string, any>> {
  return ok(await api.as(user.apiKey).post(flowsPath('getFlow'), { assignmentId }), 'getFlow').body.data;
}

/** Polls getFlow until the flow has `count` execution results (event flows run asynchronously). */
export async function waitForExecutions(api: TestApi, user: TestUser, assignmentId: string, count: number): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const flow = await getFlow(api, user, assignmentId);
    if (flow.executionResults.length >= count) return flow;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`flow ${assignmentId} did not record ${count} executions within 15 s`);
}
