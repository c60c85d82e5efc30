// The OpenAPI document as a reference: every operation described, with its scopes, examples and error answers.
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/platform/openapi.js';
import { routes } from '../../functions/routes.js';

type Operation = {
  operationId: string;
  summary: string;
  description: string;
  'x-required-scopes'?: string[];
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
};

const document = buildOpenApiDocument(routes, 'http://127.0.0.1:3000', 'test');
const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods) as Operation[]);
const byId = (id: string) => operations.find((operation) => operation.operationId === id)!;

describe('platform: the OpenAPI document', () => {
  it('is valid OpenAPI 3 and gives every operation a summary, a description, a success example and its error answers', async () => {
    // Act
    await SwaggerParser.validate(structuredClone(document) as never);
    // Assess
    expect(operations).toHaveLength(routes.length);
    for (const operation of operations) {
      expect(operation.summary.length, operation.operationId).toBeGreaterThan(5);
      expect(operation.description.length, operation.operationId).toBeGreaterThan(operation.summary.length);
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))!;
      const answer = success[1].content!['application/json'] ?? success[1].content!['text/event-stream'];
      expect(answer!.example, operation.operationId).toBeDefined();
      expect(operation.responses['500'], operation.operationId).toBeDefined();
    }
  });

  it('names the required scopes and answers 401, 403 and 429 where a key is needed', () => {
    // Act
    const pause = byId('pauseFlow');
    const health = byId('getHealth');
    // Assess
    expect(pause['x-required-scopes']).toEqual(['flows:manage']);
    expect(pause.description).toContain('Required scope: `*` or `flows:manage`');
    expect(Object.keys(pause.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '500']));
    expect(pause.requestBody!.content['application/json']!.example).toHaveProperty('assignmentId');
    expect(Object.keys(health.responses)).not.toContain('401');
    expect(Object.keys(health.responses)).not.toContain('403');
    expect(health['x-required-scopes']).toBeUndefined();
  });

  it('shows the 402 body of paid routes', () => {
    // Act
    const paid = byId('getPaidResource');
    // Assess
    expect(paid.responses['402']!.content!['application/json']!.example).toMatchObject({
      x402Version: 1,
      accepts: [expect.objectContaining({ scheme: 'exact' })],
    });
  });

  it('gives durations their unit and never points at documents outside the repository', () => {
    // Act
    const text = JSON.stringify(document);
    // Assess
    expect(text).not.toMatch(/SPEC\.md|DESIGN\.md|STYLE\.md/);
    const durations = [...text.matchAll(/"(?:duration|avgDuration|averageDuration)":\{([^}]*)\}/g)].map((match) => match[1]);
    expect(durations.length).toBeGreaterThan(3);
    for (const duration of durations) expect(duration).toContain('milliseconds');
  });

  it('describes the condition trees of flows and subscriptions, operators in both spellings', () => {
    // Prepare
    type Schema = { $ref?: string; anyOf?: Array<{ properties: Record<string, { enum?: string[]; items?: { $ref?: string } }> }>; items?: { $ref?: string } };
    const schemas = document.components.schemas as Record<string, Schema>;
    const bodyOf = (id: string) =>
      (byId(id).requestBody!.content['application/json'] as unknown as { schema: { properties: Record<string, Schema> } }).schema.properties;
    // Act
    const flowField = bodyOf('createEventFlow').conditions!;
    const subscriptionField = bodyOf('createSubscription').conditions!;
    const [flowLeaf, flowGroup] = schemas.FlowCondition!.anyOf!;
    const [scriptLeaf] = schemas.SubscriptionCondition!.anyOf!;
    // Assess
    expect(flowField.$ref).toBe('#/components/schemas/FlowCondition');
    expect(subscriptionField.items!.$ref).toBe('#/components/schemas/SubscriptionCondition');
    expect(flowGroup!.properties.operator!.enum).toEqual(expect.arrayContaining(['AND', 'OR']));
    expect(flowGroup!.properties.conditions!.items!.$ref).toBe('#/components/schemas/FlowCondition');
    expect(flowLeaf!.properties.operator!.enum).toEqual(
      expect.arrayContaining(['equals', 'contains', 'startsWith', 'starts_with', 'endsWith', 'greaterThan', 'lessThan', 'exists', 'regex']),
    );
    expect(scriptLeaf!.properties.operator!.enum).toEqual(
      expect.arrayContaining(['not_equals', 'notEquals', 'starts_with', 'startsWith', 'greater_than_or_equal', 'not_in', 'notIn']),
    );
  });
});
