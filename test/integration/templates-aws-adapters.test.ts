// The templates area's AWS adapter against moto_server: CodeBuild StartBuild with the job as environment
// variables, build logs from CloudWatch Logs, sites removed from S3, and CodeBuild state changes turned into
// build outcomes (the manifest read back from the pages bucket).
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { BatchGetBuildsCommand, CodeBuildClient, CreateProjectCommand } from '@aws-sdk/client-codebuild';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildJobVariables,
  createCodeBuildTemplateBuilder,
  manifestKey,
  outcomeOfStateChange,
} from '../../functions/adapters/aws/codebuild-template-builder.js';
import type { BuildRecord } from '../../functions/templates/model.js';
import { type Moto, startMoto } from '../support/moto.js';
import { manifest } from '../support/templates.js';

let moto: Moto;
let s3: S3Client;
const project = 'template-builds';
const logGroup = '/platform/template-builds';

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client({ ...moto.clientConfig, forcePathStyle: true });
  await new CodeBuildClient(moto.clientConfig).send(
    new CreateProjectCommand({
      // moto insists on a source location; the real project has none (lib/templates.ts).
      name: project,
      source: { type: 'S3', location: 'sources/none.zip', buildspec: 'version: 0.2' },
      artifacts: { type: 'NO_ARTIFACTS' },
      environment: { type: 'LINUX_CONTAINER', image: 'aws/codebuild/standard:7.0', computeType: 'BUILD_GENERAL1_SMALL' },
      serviceRole: 'arn:aws:iam::123456789012:role/codebuild',
    }),
  );
});
afterAll(() => moto.stop());

/**
 * moto answers CodeBuild's timestamps as ISO strings where the service sends epoch seconds, which the SDK refuses
 * to parse: this client rewrites them in the raw response, before the SDK reads it. moto keeps no environment
 * overrides either, so the client also records the requests it sends.
 */
function codeBuildForMoto(sent: Array<Record<string, unknown>> = []): CodeBuildClient {
  const client = new CodeBuildClient(moto.clientConfig);
  client.middlewareStack.add(
    (next) => async (args) => {
      const { body } = args.request as { body?: string | Uint8Array };
      if (body) sent.push(JSON.parse(body instanceof Uint8Array ? Buffer.from(body).toString('utf8') : body));
      return next(args);
    },
    { step: 'finalizeRequest', name: 'recordRequests' },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const response = result.response as { body: AsyncIterable<Uint8Array> };
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body) chunks.push(chunk);
      const text = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/"(\d{4}-\d{2}-\d{2}T[^"]+)"/g, (_, iso: string) => String(Date.parse(iso) / 1000));
      response.body = Readable.from([Buffer.from(text)]);
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'motoEpochTimestamps' },
  );
  return client;
}

async function givenBuilder(codebuild = codeBuildForMoto()) {
  const bucket = `pages-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const builder = createCodeBuildTemplateBuilder({
    projectName: project,
    bucketName: bucket,
    logGroupName: logGroup,
    codebuild,
    logs: moto.clientConfig,
    s3: { ...moto.clientConfig, forcePathStyle: true },
  });
  return { bucket, builder };
}

const job = {
  buildId: 'bld_test1',
  userId: 'usr_test1',
  repository: 'https://example.com/site.git',
  gitHash: 'a'.repeat(40),
  templatePath: 'site',
  subdomain: 'site-abc',
  publicEnv: { NEXT_PUBLIC_TITLE: "it's $(here)" },
};

describe('aws adapter: CodeBuild template builder', () => {
  it('starts one build of the project with the job as environment variables, public values as base64 JSON', async () => {
    // Prepare
    const sent: Array<Record<string, unknown>> = [];
    const { builder } = await givenBuilder(codeBuildForMoto(sent));
    // Act
    const { runId } = await builder.start(job);
    const { builds } = await codeBuildForMoto().send(new BatchGetBuildsCommand({ ids: [runId] }));
    // Assess
    expect(runId).toMatch(new RegExp(`^${project}:`));
    expect(builds?.[0]).toMatchObject({ id: runId, projectName: project });
    expect(sent[0]).toMatchObject({ projectName: project, idempotencyToken: job.buildId });
    const overrides = sent[0]!.environmentVariablesOverride as Array<{ name: string; value: string; type: string }>;
    expect(overrides.every((variable) => variable.type === 'PLAINTEXT')).toBe(true);
    const variables = Object.fromEntries(overrides.map((variable) => [variable.name, variable.value]));
    expect(variables).toMatchObject({
      [buildJobVariables.buildId]: job.buildId,
      [buildJobVariables.repository]: job.repository,
      [buildJobVariables.gitHash]: job.gitHash,
      [buildJobVariables.templatePath]: 'site',
      [buildJobVariables.subdomain]: 'site-abc',
    });
    expect(JSON.parse(Buffer.from(variables[buildJobVariables.publicEnv]!, 'base64').toString('utf8'))).toEqual(job.publicEnv);
  });

  it('reads a running build’s log lines from its CloudWatch Logs stream, none before the stream exists', async () => {
    // Prepare
    const { builder } = await givenBuilder();
    const logs = new CloudWatchLogsClient(moto.clientConfig);
    await logs.send(new CreateLogGroupCommand({ logGroupName: logGroup })).catch(() => undefined);
    const stream = `run-${Date.now()}`;
    await logs.send(new CreateLogStreamCommand({ logGroupName: logGroup, logStreamName: stream }));
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: logGroup,
        logStreamName: stream,
        logEvents: [
          { timestamp: Date.now(), message: 'fetching\n' },
          { timestamp: Date.now(), message: 'built v1' },
        ],
      }),
    );
    const build = { runId: `${project}:${stream}` } as BuildRecord;
    // Act
    const lines = await builder.logs(build);
    const none = await builder.logs({ runId: `${project}:not-started` } as BuildRecord);
    // Assess
    expect(lines).toEqual(['fetching', 'built v1']);
    expect(none).toEqual([]);
  });

  it('removes one site’s objects and no other’s', async () => {
    // Prepare
    const { bucket, builder } = await givenBuilder();
    for (const key of ['site-abc/index.html', 'site-abc/about/index.html', 'site-abcd/index.html', 'other/index.html']) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
    }
    // Act
    await builder.removeSite('site-abc');
    const left = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    // Assess
    expect((left.Contents ?? []).map((object) => object.Key).sort()).toEqual(['other/index.html', 'site-abcd/index.html']);
  });

  it('turns final state changes into outcomes: success with the manifest read back, failures with a reason, others ignored', async () => {
    // Prepare
    const { bucket, builder } = await givenBuilder();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey('bld_ok'), Body: JSON.stringify(manifest()) }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey('bld_bad'), Body: '{"build": 1}' }));
    const change = (buildId: string | undefined, status: string) => ({
      'build-status': status,
      'additional-information': { environment: { 'environment-variables': buildId ? [{ name: buildJobVariables.buildId, value: buildId }] : [] } },
    });
    const read = (buildId: string) => builder.manifestText(buildId);
    // Act
    const [ok, bad, missing, timedOut, inProgress, foreign] = await Promise.all([
      outcomeOfStateChange(change('bld_ok', 'SUCCEEDED'), read),
      outcomeOfStateChange(change('bld_bad', 'SUCCEEDED'), read),
      outcomeOfStateChange(change('bld_none', 'SUCCEEDED'), read),
      outcomeOfStateChange(change('bld_slow', 'TIMED_OUT'), read),
      outcomeOfStateChange(change('bld_ok', 'IN_PROGRESS'), read),
      outcomeOfStateChange(change(undefined, 'FAILED'), read),
    ]);
    // Assess
    expect(ok).toMatchObject({ buildId: 'bld_ok', status: 'success', manifest: { build: { buildCommand: 'node build.mjs' } } });
    expect(bad).toMatchObject({ buildId: 'bld_bad', status: 'failed', reason: expect.stringMatching(/^template\.json build/) });
    expect(missing).toEqual({ buildId: 'bld_none', status: 'failed', reason: 'the build left no template.json behind' });
    expect(timedOut).toEqual({ buildId: 'bld_slow', status: 'failed', reason: 'the build ran past its limit and was stopped' });
    expect(inProgress).toBeUndefined();
    expect(foreign).toBeUndefined();
  });
});
