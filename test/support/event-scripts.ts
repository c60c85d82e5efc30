// Scripts for the events tests, made and read over HTTP: a deployed script that returns what it received,
// and its execution history with each run's result.
import type { TestApi, TestUser } from './platform.js';

/** Returns the trigger and the event (or webhook body, or schedule data) it was run with. */
export const echoCode = 'async function handler(event) { return { success: true, trigger: event.trigger, data: event.data }; }';
export const crashingCode = "async function handler() { throw new Error('this script always crashes'); }";

export interface Run {
  executionId: string;
  status: string;
  trigger: string;
  result: { trigger?: { type: string; source: string; event: string | null }; data?: any } | null;
}

export function eventScripts(api: TestApi) {
  async function givenScript(user: TestUser, options: { code?: string; deploy?: boolean } = {}): Promise<string> {
    const created = await api.as(user.apiKey).post('/api/sdk/v1/scripts', { name: `events-${Date.now()}`, code: options.code ?? echoCode });
    if (created.status !== 201) throw new Error(`could not create a script: ${created.text}`);
    const scriptId = created.body.data.id as string;
    if (options.deploy ?? true) {
      const deployed = await api.as(user.apiKey).post('/api/sdk/v1/scripts/deployScript', { scriptId });
      if (deployed.status !== 200) throw new Error(`could not deploy ${scriptId}: ${deployed.text}`);
    }
    return scriptId;
  }

  /** Finished runs of a script, oldest first, each with its result. */
  async function runsOf(user: TestUser, scriptId: string): Promise<Run[]> {
    const list = await api.as(user.apiKey).get(`/api/sdk/v1/scripts/${scriptId}/executions?limit=100`);
    if (list.status !== 200) throw new Error(`could not list runs of ${scriptId}: ${list.text}`);
    const finished = (list.body.data.executions as Array<{ executionId: string; status: string }>).filter((run) => run.status !== 'running').reverse();
    return Promise.all(
      finished.map(async ({ executionId }) => {
        const detail = await api.as(user.apiKey).get(`/api/sdk/v1/scripts/${scriptId}/executions/${executionId}`);
        return detail.body.data as Run;
      }),
    );
  }

  /** Polls the execution history until the script has run `count` times (delivery is asynchronous). */
  async function waitForRuns(user: TestUser, scriptId: string, count: number): Promise<Run[]> {
    for (let attempt = 0; attempt < 150; attempt++) {
      const runs = await runsOf(user, scriptId);
      if (runs.length >= count) return runs;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`script ${scriptId} did not run ${count} times within 15 s`);
  }

  return { givenScript, runsOf, waitForRuns };
}
