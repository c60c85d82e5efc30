// moto_server on 127.0.0.1 for the AWS adapters' control-plane calls.
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CreatePolicyCommand, IAMClient } from '@aws-sdk/client-iam';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort } from '../../bin/local.js';
import { createScriptFunctionUpkeep } from '../../functions/adapters/aws/script-function-upkeep.js';
import { registerPlatformListener } from '../../functions/platform/outbound.js';

export interface Moto {
  endpoint: string;
  /** Environment for an AWS SDK client pointed at moto. */
  clientConfig: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  stop(): Promise<void>;
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const spawnError = new Promise<never>((_, reject) => child.once('error', (error) => reject(new Error(`moto_server could not start: ${error.message}`))));
  const endpoint = `http://127.0.0.1:${port}`;
  registerPlatformListener(endpoint);
  const ready = (async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const response = await fetch(`${endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ lambda: { use_docker: false } }) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`moto_server did not start: ${stderr.slice(-1000)}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  })();
  await Promise.race([ready, spawnError]);
  return {
    endpoint,
    clientConfig: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * What the script-function deployer needs beside Lambda in moto: CloudWatch Logs, IAM and the permissions boundary
 * each script's own role is created under; `upkeep` builds the deployer's upkeep for a resource-call function.
 */
export async function givenScriptUpkeep(moto: Moto, lambda: LambdaClient, resourceCallFunctionArn: string) {
  const [logs, iam] = [new CloudWatchLogsClient(moto.clientConfig), new IAMClient(moto.clientConfig)];
  const boundary = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: '*' }] };
  const policy = await iam.send(
    new CreatePolicyCommand({ PolicyName: `script-boundary-${randomUUID().slice(0, 8)}`, PolicyDocument: JSON.stringify(boundary) }),
  );
  const boundaryArn = policy.Policy!.Arn!;
  const upkeep = () =>
    createScriptFunctionUpkeep({ lambda, logs, iam, retentionDays: 14, keepVersions: 2, region: 'us-east-1', boundaryArn, resourceCallFunctionArn });
  return { logs, iam, boundaryArn, upkeep };
}
