// `npm run check:deploy`: the deploy smoke check of .ci/run. Synthesizes the stack, runs cfn-lint over every template
// (0 errors), then creates each template (the parent and every nested one) as its own stack in moto_server's
// CloudFormation until CREATE_COMPLETE. Resource types moto does not model become stand-ins (an SSM parameter; their
// attributes become literal strings); parameters a nested stack takes from its parent get stand-in values; asset
// objects the templates name are put in a stand-in bootstrap bucket. Bundling is skipped: templates are otherwise
// the ones `cdk synth` writes (function code inline instead of in an asset).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  ListStackResourcesCommand,
} from '@aws-sdk/client-cloudformation';
import { CreateEventBusCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { App } from 'aws-cdk-lib';
import { strToU8, zipSync } from 'fflate';
import { PlatformStack } from '../lib/platform-stack.js';
import { startMoto } from '../test/support/moto.js';

// biome-ignore lint/suspicious/noExplicitAny: a synthesized CloudFormation template, walked loosely
type Json = Record<string, any>;

const account = '123456789012';
const region = 'us-east-1';

function synthesize(): string {
  const outdir = mkdtempSync(join(tmpdir(), 'check-deploy-'));
  const context = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')).context;
  const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  new PlatformStack(app, 'PlatformStack', { solana: { platformWalletAddress: '11111111111111111111111111111111' } });
  app.synth();
  return outdir;
}

/** cfn-lint's exit status is a bit mask: 2 errors, 4 warnings, 8 informational. */
function lint(templates: string[]): void {
  const result = spawnSync('cfn-lint', ['--regions', region, '--', ...templates], { encoding: 'utf8' });
  if (result.error) throw new Error(`cfn-lint could not run (is it on PATH?): ${result.error.message}`);
  if ((result.status ?? 2) & 2) {
    console.log(result.stdout);
    throw new Error(`cfn-lint found errors in the synthesized templates (exit ${result.status})`);
  }
  const warnings = result.stdout.split('\n').filter((line) => /^W\d/.test(line)).length;
  console.log(`cfn-lint: ${templates.length} templates, 0 errors, ${warnings} warnings`);
}

/** The resource types moto_server's CloudFormation creates, from moto itself (the python3 that runs moto_server). */
const modelledTypes = (): Set<string> =>
  new Set(
    JSON.parse(
      execFileSync('python3', ['-c', 'import json; from moto.cloudformation.parsing import get_model_map; print(json.dumps(sorted(get_model_map())))'], {
        encoding: 'utf8',
      }),
    ) as string[],
  );

/** Replaces `{Ref: standIn}` and `{Fn::GetAtt: [standIn, attr]}` anywhere in `value` by ARN-shaped literals (IAM policies take them). */
function replaceAttributes(value: unknown, standIns: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => replaceAttributes(item, standIns));
  if (!value || typeof value !== 'object') return value;
  const object = value as Json;
  if (typeof object.Ref === 'string' && standIns.has(object.Ref)) return `arn:aws:standin:${region}:${account}:${object.Ref}`;
  const getAtt = object['Fn::GetAtt'];
  if (getAtt) {
    const [resource, attribute] = Array.isArray(getAtt) ? getAtt : String(getAtt).split('.');
    if (standIns.has(resource)) return `arn:aws:standin:${region}:${account}:${resource}/${attribute}`;
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, replaceAttributes(item, standIns)]));
}

/** The template moto can create: stand-ins for what it does not model, no bootstrap version rule. */
function forMoto(template: Json, modelled: Set<string>): { template: Json; standIns: string[] } {
  const resources = template.Resources as Record<string, Json>;
  // Nested stacks are created on their own; moto would fetch their templates from the asset bucket.
  const standIns = new Set(Object.keys(resources).filter((id) => !modelled.has(resources[id]!.Type) || resources[id]!.Type === 'AWS::CloudFormation::Stack'));
  const replaced = Object.fromEntries(
    Object.entries(resources).map(([id, resource]) => [
      id,
      standIns.has(id)
        ? {
            Type: 'AWS::SSM::Parameter',
            Properties: { Name: { 'Fn::Sub': `/stand-in/\${AWS::StackName}/${id}` }, Type: 'String', Value: `stand-in for ${resource.Type}` },
            ...(resource.DependsOn && { DependsOn: resource.DependsOn }),
          }
        : resource,
    ]),
  );
  const { Rules: _rules, Parameters: parameters = {}, ...rest } = template;
  const { BootstrapVersion: _bootstrap, ...kept } = parameters as Json;
  return {
    template: replaceAttributes({ ...rest, Parameters: kept, Resources: replaced }, standIns) as Json,
    standIns: [...standIns].map((id) => resources[id]!.Type),
  };
}

/** What a parent would pass, ARN-shaped: names and ids pass as strings, and IAM policies only take ARNs. */
const standInParameter = (name: string) => ({ ParameterKey: name, ParameterValue: `arn:aws:standin:${region}:${account}:${name}` });

/** S3 keys of asset objects the template names, so moto finds the layer and function code it reads at creation. */
function assetKeys(template: Json): string[] {
  const keys = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value as Json)) {
      if ((key === 'S3Key' || key === 'S3ObjectKey') && typeof item === 'string') keys.add(item);
      visit(item);
    }
  };
  visit(template.Resources);
  return [...keys];
}

/** Event buses a nested stack's rules take from its parent: moto's rules need the bus to exist. */
async function standInBuses(events: EventBridgeClient, template: Json): Promise<Map<string, string>> {
  const buses = new Map<string, string>();
  for (const resource of Object.values(template.Resources as Record<string, Json>)) {
    const parameter = resource.Properties?.EventBusName?.Ref;
    if (typeof parameter !== 'string' || !(parameter in (template.Parameters ?? {})) || buses.has(parameter)) continue;
    const name = `standin-${buses.size}-${parameter.slice(-40)}`;
    buses.set(parameter, (await events.send(new CreateEventBusCommand({ Name: name }))).EventBusArn!);
  }
  return buses;
}

async function create(cloudFormation: CloudFormationClient, name: string, template: Json, given: Map<string, string>): Promise<number> {
  const parameters = Object.keys(template.Parameters ?? {}).map((key) =>
    given.has(key) ? { ParameterKey: key, ParameterValue: given.get(key) } : standInParameter(key),
  );
  await cloudFormation.send(
    new CreateStackCommand({
      StackName: name,
      TemplateBody: JSON.stringify(template),
      Parameters: parameters,
      Capabilities: ['CAPABILITY_IAM', 'CAPABILITY_NAMED_IAM', 'CAPABILITY_AUTO_EXPAND'],
    }),
  );
  for (;;) {
    const [stack] = (await cloudFormation.send(new DescribeStacksCommand({ StackName: name }))).Stacks ?? [];
    if (stack?.StackStatus === 'CREATE_COMPLETE') break;
    if (!stack?.StackStatus?.endsWith('IN_PROGRESS')) {
      const events = (await cloudFormation.send(new DescribeStackEventsCommand({ StackName: name }))).StackEvents ?? [];
      const failed = events
        .filter((event) => event.ResourceStatus?.endsWith('FAILED'))
        .map((event) => `${event.LogicalResourceId}: ${event.ResourceStatusReason}`);
      throw new Error(`${name}: ${stack?.StackStatus} ${stack?.StackStatusReason ?? ''}\n${failed.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  let count = 0;
  let token: string | undefined;
  do {
    const page = await cloudFormation.send(new ListStackResourcesCommand({ StackName: name, NextToken: token }));
    count += page.StackResourceSummaries?.filter((resource) => resource.ResourceStatus === 'CREATE_COMPLETE').length ?? 0;
    token = page.NextToken;
  } while (token);
  return count;
}

const outdir = synthesize();
const templates = readdirSync(outdir)
  .filter((name) => name.endsWith('.template.json'))
  .map((name) => join(outdir, name));
lint(templates);

const moto = await startMoto();
try {
  const config = { ...moto.clientConfig, region };
  // One attempt: moto creates the stack within CreateStack, and a retry would only meet the stack it made.
  const cloudFormation = new CloudFormationClient({ ...config, maxAttempts: 1 });
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const events = new EventBridgeClient(config);
  const modelled = modelledTypes();
  const placeholderZip = zipSync({
    'index.mjs': strToU8('export const handler = async () => ({});\n'),
    'python_facts.py': strToU8('def handler(event, context):\n    return {}\n'),
  });
  const bucket = `cdk-hnb659fds-assets-${account}-${region}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  let total = 0;
  for (const file of templates) {
    const synthesized = JSON.parse(readFileSync(file, 'utf8')) as Json;
    for (const key of assetKeys(synthesized)) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: placeholderZip }));
    const { template, standIns } = forMoto(synthesized, modelled);
    const name = file
      .split('/')
      .at(-1)!
      .replace(/\.(nested\.)?template\.json$/, '')
      .replace(/[^A-Za-z0-9-]/g, '-');
    const created = await create(cloudFormation, name, template, await standInBuses(events, template));
    total += created;
    const kinds = [...new Set(standIns)].sort();
    console.log(`${name}: CREATE_COMPLETE, ${created} resources${kinds.length ? ` (${standIns.length} stand-ins: ${kinds.join(', ')})` : ''}`);
  }
  console.log(`check:deploy: ${templates.length} stacks CREATE_COMPLETE in moto, ${total} resources`);
} finally {
  await moto.stop();
}
