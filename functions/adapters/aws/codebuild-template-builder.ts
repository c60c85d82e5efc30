// The AWS TemplateBuilder: one CodeBuild project (lib/templates.ts) runs each build with the job as environment
// variables; its buildspec fetches the commit, builds and syncs the output to the pages bucket. The end comes back
// as a CodeBuild state change over EventBridge (functions/app/templates/handlers/record-build-state.ts); logs are read
// from CloudWatch Logs while the build runs. Sites are removed from the pages bucket here.
import type { CloudWatchLogsClientConfig } from '@aws-sdk/client-cloudwatch-logs';
import type { CodeBuildClient, CodeBuildClientConfig } from '@aws-sdk/client-codebuild';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { BuildFailure, parseManifest } from '#functions/templates/checkout-port.js';
import type { BuildOutcome, BuildRecord } from '#functions/templates/model.js';
import type { BuildJob, TemplateBuilder } from '#functions/templates/ports.js';
import { envNames } from '#platform/env-names.js';
import { onFirstUse } from './on-first-use.js';

/** Names of the environment variables the buildspec reads; lib/templates.ts writes the buildspec against them. */
export const buildJobVariables = {
  buildId: 'PLATFORM_BUILD_ID',
  repository: 'TEMPLATE_REPOSITORY',
  gitHash: 'TEMPLATE_GIT_HASH',
  templatePath: 'TEMPLATE_PATH',
  subdomain: 'TEMPLATE_SUBDOMAIN',
  publicEnv: 'TEMPLATE_PUBLIC_ENV',
} as const;

/** Where the buildspec leaves the template.json it built with, for the state-change consumer to check and record. */
export const manifestKey = (buildId: string) => `_meta/${buildId}/template.json`;

export interface CodeBuildBuilderOptions {
  projectName?: string;
  bucketName?: string;
  /** Unset, CodeBuild's default group of the project. */
  logGroupName?: string;
  codebuild?: CodeBuildClientConfig | CodeBuildClient;
  logs?: CloudWatchLogsClientConfig;
  s3?: S3ClientConfig;
}

const required = (value: string | undefined, name: string) => {
  if (!value) throw new Error(`${name} is not set: the function needs \`uses: ['templateBuilds']\``);
  return value;
};

export function createCodeBuildTemplateBuilder(
  options: CodeBuildBuilderOptions = {},
): TemplateBuilder & { manifestText(buildId: string): Promise<string | undefined> } {
  // Each service's SDK loads on its first call: the template handlers import this module for what they never call.
  const codebuild = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-codebuild');
    return { sdk, client: options.codebuild instanceof sdk.CodeBuildClient ? options.codebuild : new sdk.CodeBuildClient(options.codebuild ?? {}) };
  });
  const logs = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-cloudwatch-logs');
    return { sdk, client: new sdk.CloudWatchLogsClient(options.logs ?? {}) };
  });
  const s3 = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-s3');
    return { sdk, client: new sdk.S3Client(options.s3 ?? {}) };
  });
  const project = () => required(options.projectName, envNames.templateBuildProject);
  const bucket = () => required(options.bucketName, envNames.pagesBucket);

  return {
    async start(job: BuildJob) {
      const variables: Record<string, string> = {
        [buildJobVariables.buildId]: job.buildId,
        [buildJobVariables.repository]: job.repository,
        [buildJobVariables.gitHash]: job.gitHash,
        [buildJobVariables.templatePath]: job.templatePath,
        [buildJobVariables.subdomain]: job.subdomain,
        // JSON in base64: values of a hostile tenant never meet a shell unquoted.
        [buildJobVariables.publicEnv]: Buffer.from(JSON.stringify(job.publicEnv)).toString('base64'),
      };
      const { sdk, client } = await codebuild();
      const { build } = await client.send(
        new sdk.StartBuildCommand({
          projectName: project(),
          idempotencyToken: job.buildId,
          environmentVariablesOverride: Object.entries(variables).map(([name, value]) => ({ name, value, type: 'PLAINTEXT' })),
        }),
      );
      return { runId: build?.id ?? job.buildId };
    },

    /** One log stream per build, named after the part of the build id after `:` (TEMPLATE_BUILD_LOG_GROUP, CodeBuild's default group otherwise). */
    async logs(build: BuildRecord) {
      if (!build.runId?.includes(':')) return undefined;
      const { sdk, client } = await logs();
      try {
        const page = await client.send(
          new sdk.GetLogEventsCommand({
            logGroupName: options.logGroupName ?? `/aws/codebuild/${project()}`,
            logStreamName: build.runId.split(':').slice(1).join(':'),
            startFromHead: true,
            limit: 10_000,
          }),
        );
        return (page.events ?? []).map((event) => (event.message ?? '').replace(/\n$/, ''));
      } catch (error) {
        // The stream appears a few seconds after the build starts.
        if ((error as Error).name === 'ResourceNotFoundException') return [];
        throw error;
      }
    },

    async removeSite(subdomain: string) {
      const { sdk, client } = await s3();
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket(), Prefix: `${subdomain}/`, ContinuationToken }));
        const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
        if (keys.length) await client.send(new sdk.DeleteObjectsCommand({ Bucket: bucket(), Delete: { Objects: keys, Quiet: true } }));
        ContinuationToken = page.NextContinuationToken;
      } while (ContinuationToken);
    },

    async manifestText(buildId: string) {
      const { sdk, client } = await s3();
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: manifestKey(buildId) }));
        return await object.Body?.transformToString();
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
  };
}

/** The part of EventBridge's "CodeBuild Build State Change" event the platform reads. */
export interface CodeBuildStateChange {
  'build-status': string;
  'build-id'?: string;
  'additional-information'?: { environment?: { 'environment-variables'?: Array<{ name: string; value: string }> } };
}

const endings: Record<string, string> = {
  FAILED: 'the build command or a build step failed; see the logs',
  FAULT: 'the build service failed; build again',
  STOPPED: 'the build was stopped',
  TIMED_OUT: 'the build ran past its limit and was stopped',
};

/** The outcome a final state change means; undefined for other builds and for states that are not an end. */
export async function outcomeOfStateChange(
  detail: CodeBuildStateChange,
  manifestText: (buildId: string) => Promise<string | undefined>,
): Promise<BuildOutcome | undefined> {
  const variables = detail['additional-information']?.environment?.['environment-variables'] ?? [];
  const buildId = variables.find((variable) => variable.name === buildJobVariables.buildId)?.value;
  const status = detail['build-status'];
  if (!buildId || (status !== 'SUCCEEDED' && !(status in endings))) return undefined;
  if (status !== 'SUCCEEDED') return { buildId, status: 'failed', reason: endings[status]! };
  const text = await manifestText(buildId);
  if (text === undefined) return { buildId, status: 'failed', reason: 'the build left no template.json behind' };
  try {
    return { buildId, status: 'success', manifest: parseManifest(text) };
  } catch (error) {
    if (error instanceof BuildFailure) return { buildId, status: 'failed', reason: error.message };
    throw error;
  }
}
