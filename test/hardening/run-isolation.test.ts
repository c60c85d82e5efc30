// Runs of one tenant cannot hold back another's: an installed script's `config.concurrency` key values count per user
// who runs it (unless its owner made the key global), over HTTP with real sandboxed workers. Each run waits inside its
// handler on a resource call to a local upstream, which answers when the test says. And an execution id costs one
// lookup however many flows its caller has: DynamoDB calls are counted on the platform's own client.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../functions/platform/ids.js';
import { commandsDuring } from '../support/dynamo-commands.js';
import { givenEventFlow } from '../support/flows.js';
import { waitFor } from '../support/local-start.js';
import { type TestUser, reconfigurePlatform } from '../support/platform.js';
import { givenInstalled, heldRunWorld, lastSegmentOf } from '../support/resources.js';
import { givenListed, rest, sdk } from '../support/scripts.js';

/** Its owner publishes the script and runs it too: the other tenant. */
const world = heldRunWorld({ pricing: { model: 'free' } });
/** Installed the script. */
let customer: TestUser;

beforeAll(async () => {
  customer = await world.api.givenUser();
  await givenInstalled(world.api, customer, world.resourceId);
});

/** A published script of the owner with limit 1 per `customerId`, installed by the customer; its runs call the upstream. */
async function givenInstalledKeyedScript(scope?: 'user' | 'global'): Promise<string> {
  const script = await givenListed(world.api, world.owner, {
    config: { allowedResources: [world.resourceName], concurrency: { limit: 1, key: 'customerId', ...(scope && { scope }) } },
    code: `export async function handler(event) { return await resources['${world.resourceName}'].getForecast({ city: String(event.data.who) }); }`,
  });
  const installed = await world.api.as(customer.apiKey).post(`${rest}/${script.id}/install`);
  expect(installed.status, installed.text).toBe(201);
  return script.id;
}

const run = (who: TestUser, scriptId: string) =>
  world.api.as(who.apiKey).post(sdk('executeScript'), { scriptId, data: { customerId: 'acme', who: who.username } });
const statusOf = async (who: TestUser, executionId: string) =>
  (await world.api.as(who.apiKey).post(sdk('getExecution'), { executionId })).body.data.status as string;

describe('run isolation: concurrency keys of an installed script', () => {
  it("runs the customer's run of key value acme while another tenant's run of acme is held inside the script", async () => {
    // Prepare: the owner's run of acme holds the script's only place for that value (limit 1).
    const scriptId = await givenInstalledKeyedScript();
    world.calls.hold((who) => who === world.owner.username);
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    const tenantRun = await run(world.owner, scriptId);
    await waitFor(() => world.calls.held.length === 1, "the other tenant's run held inside");
    reconfigurePlatform({ RUN_WAIT_SECONDS: undefined });
    // Act
    const customerRun = await run(customer, scriptId);
    // Assess: it ran to its end inside the API's wait, the other tenant's run still held.
    expect(customerRun.status, customerRun.text).toBe(200);
    expect(customerRun.body.data).toMatchObject({ status: 'completed' });
    expect(world.calls.held).toHaveLength(1);
    expect(await statusOf(world.owner, tenantRun.body.data.executionId)).toBe('running');
  }, 120_000);

  it("makes the customer's run wait its turn behind the other tenant's run when the owner made the key global", async () => {
    // Prepare
    const scriptId = await givenInstalledKeyedScript('global');
    world.calls.hold((who) => who === world.owner.username);
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    await run(world.owner, scriptId);
    await waitFor(() => world.calls.held.length === 1, "the other tenant's run held inside");
    const calledBefore = world.upstream.received.length;
    const customerCalled = () => world.upstream.received.slice(calledBefore).some((request) => lastSegmentOf(request) === customer.username);
    // Act
    const customerRun = await run(customer, scriptId);
    const calledWhileHeld = customerCalled();
    const statusWhileHeld = await statusOf(customer, customerRun.body.data.executionId);
    world.calls.answerAll();
    // Assess
    expect(customerRun.status, customerRun.text).toBe(202);
    expect(calledWhileHeld).toBe(false);
    expect(statusWhileHeld).toBe('running');
    await waitFor(customerCalled, "the customer's run once its turn came");
  }, 120_000);
});

describe('run isolation: an execution id is one lookup', () => {
  it('answers cancel and rerun of an unknown id by a user with 40 flows with NOT_FOUND in a few reads, none per flow', async () => {
    // Prepare
    const user = await world.api.givenUser();
    for (let index = 0; index < 40; index++) await givenEventFlow(world.api, user, { title: `flow ${index}` });
    const unknown = newId('exe');
    // Act
    const { value: answers, commands } = await commandsDuring(() =>
      Promise.all([
        world.api.as(user.apiKey).post(`/api/sdk/v1/executions/${unknown}/cancel`),
        world.api.as(user.apiKey).post(`/api/sdk/v1/executions/${unknown}/rerun`, { fromStep: 'a' }),
      ]),
    );
    // Assess
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'NOT_FOUND', details: { executionId: unknown } });
    }
    const ofFlows = commands.filter(({ table }) => /flow/i.test(table));
    expect(ofFlows.length, JSON.stringify(ofFlows)).toBeLessThanOrEqual(2 * 2);
  }, 180_000);
});
