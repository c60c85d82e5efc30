// moto_server on 127.0.0.1 for the AWS adapters' control-plane calls (DESIGN.md §1).
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../bin/local.js';
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

/** moto checks that the execution role exists; IAM's query API is enough to make one. */
export async function createRole(endpoint: string, name: string): Promise<string> {
  const policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] });
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=x' },
    body: new URLSearchParams({ Action: 'CreateRole', Version: '2010-05-08', RoleName: name, AssumeRolePolicyDocument: policy }).toString(),
  });
  const text = await response.text();
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(text)?.[1];
  if (!arn) throw new Error(`CreateRole failed: ${text.slice(0, 300)}`);
  return arn;
}
