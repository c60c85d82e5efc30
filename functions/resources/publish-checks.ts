// The interface's publish conditions: valid name and description, at least one method, a valid OpenAPI 3.0 document,
// every method's schema valid. A refusal names the failed check in `details`.
import { ValidationError } from '#platform/errors.js';
import { methodProblems } from './method-definitions.js';
import type { Endpoint } from './records.js';
import type { ResourceType } from './schemas.js';

export type PublishCheck = 'name' | 'description' | 'methods' | 'endpoint' | 'openApiSpec' | 'methodSchemas';

export interface PublishFailure {
  check: PublishCheck;
  field: string;
  value: unknown;
  message: string;
}

export interface PublishCandidate {
  name: string;
  description: string;
  resourceType: ResourceType;
  endpoint: Endpoint;
  openApiSpec?: Record<string, unknown>;
}

/** swagger-parser is loaded on first use: only publish and PATCH of a published resource need it. */
async function openApiProblem(spec: Record<string, unknown> | undefined): Promise<string | undefined> {
  if (!spec) return 'an OpenAPI 3.0 document (openApiSpec) is required to publish';
  if (typeof spec.openapi !== 'string' || !/^3\.0\.\d+$/.test(spec.openapi))
    return `openapi must be a 3.0.x version string, not ${JSON.stringify(spec.openapi ?? null)}`;
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  try {
    // A copy: the parser dereferences in place. No external $refs: a document must not make the platform read files or URLs.
    await SwaggerParser.validate(structuredClone(spec) as never, { resolve: { external: false, file: false, http: false } } as never);
    return undefined;
  } catch (error) {
    return `not a valid OpenAPI 3.0 document: ${(error as Error).message.replace(/\s*\n\s*/g, '; ')}`;
  }
}

function endpointProblems(candidate: PublishCandidate): PublishFailure[] {
  const { endpoint } = candidate;
  const failures: PublishFailure[] = [];
  const fail = (field: string, value: unknown, message: string) => failures.push({ check: 'endpoint', field, value, message });
  if (candidate.resourceType === 'webhook') {
    if (endpoint.authentication !== 'signature')
      fail('endpoint.authentication', endpoint.authentication, 'webhook resources authenticate events with authentication "signature"');
    if (!endpoint.signatureHeader) fail('endpoint.signatureHeader', null, 'webhook resources name the header carrying the HMAC signature (signatureHeader)');
    return failures;
  }
  if (!endpoint.baseUrl) fail('endpoint.baseUrl', null, 'endpoint.baseUrl is required to publish');
  if (endpoint.authentication === 'signature') fail('endpoint.authentication', 'signature', 'authentication "signature" is for webhook resources only');
  if (endpoint.authentication === 'oauth2') {
    if (!endpoint.authConfig?.authUrl) fail('endpoint.authConfig.authUrl', null, 'oauth2 needs authConfig.authUrl for the authorization-code flow');
    if (!endpoint.authConfig?.tokenUrl) fail('endpoint.authConfig.tokenUrl', null, 'oauth2 needs authConfig.tokenUrl to exchange codes and refresh tokens');
  }
  return failures;
}

export async function publishFailures(candidate: PublishCandidate): Promise<PublishFailure[]> {
  const failures: PublishFailure[] = [];
  if (!candidate.name.trim()) failures.push({ check: 'name', field: 'name', value: candidate.name, message: 'a name is required' });
  if (!candidate.description.trim())
    failures.push({ check: 'description', field: 'description', value: candidate.description, message: 'a description is required' });
  const isWebhook = candidate.resourceType === 'webhook';
  if (isWebhook ? !candidate.endpoint.events?.length : candidate.endpoint.methods.length === 0) {
    failures.push(
      isWebhook
        ? {
            check: 'methods',
            field: 'endpoint.events',
            value: candidate.endpoint.events ?? [],
            message: 'a webhook resource needs at least one event in endpoint.events',
          }
        : { check: 'methods', field: 'endpoint.methods', value: [], message: 'at least one method is required' },
    );
  }
  failures.push(...endpointProblems(candidate));
  const openApi = await openApiProblem(candidate.openApiSpec);
  if (openApi) failures.push({ check: 'openApiSpec', field: 'openApiSpec', value: candidate.openApiSpec?.openapi ?? null, message: openApi });
  for (const problem of methodProblems(candidate.endpoint.methods))
    failures.push({ check: 'methodSchemas', field: problem.field, value: null, message: problem.message });
  return failures;
}

/** VALIDATION_ERROR naming the first failed check, with every failure listed. */
export async function assertPublishable(candidate: PublishCandidate): Promise<void> {
  const failures = await publishFailures(candidate);
  const first = failures[0];
  if (!first) return;
  throw new ValidationError(first.field, first.value, `cannot publish: ${first.message}`, {
    check: first.check,
    failures: failures.map(({ check, field, message }) => ({ check, field, message })),
  });
}
