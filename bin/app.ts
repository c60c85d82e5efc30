// CDK app entry: `npx cdk synth` / `npx cdk deploy`. Environment-agnostic; optional context:
//   -c pagesDomain=pages.example.com -c pagesCertificateArn=arn:aws:acm:us-east-1:...  sites at <sub>.<pagesDomain>
//   -c allowPrivateUpstreams=true  resources may call private and loopback addresses
//   -c solanaNetwork=solana -c solanaRpcUrl=https://... -c solPriceUsd=150  where paid calls settle
//   -c platformWalletAddress=<base58> -c feePayerAddress=<base58> [-c payoutThresholdUsdc=10]  the public keys offers name
//   -c llmModel=<id> [-c llmProvider=bedrock|openai] [-c llmBaseUrl=https://...] [-c llmApiKeySecretArn=arn:...]
//      [-c llmInputUsdPerMTok=0.8 -c llmOutputUsdPerMTok=4]  the language model of LLM flows
//   -c stage=<name>                stack PlatformStack-<name>: every name derives from the stack, so stages share an account and region
//   -c nag=true                    run the cdk-nag AwsSolutions checks during synth
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PlatformStack } from '../lib/platform-stack.js';

const app = new App();
const context = (key: string): string | undefined => app.node.tryGetContext(key)?.toString() || undefined;

const stage = context('stage');

new PlatformStack(app, stage ? `PlatformStack-${stage}` : 'PlatformStack', {
  pagesDomain: context('pagesDomain'),
  pagesCertificateArn: context('pagesCertificateArn'),
  allowPrivateUpstreams: context('allowPrivateUpstreams') === 'true',
  solana: {
    network: context('solanaNetwork'),
    rpcUrl: context('solanaRpcUrl'),
    solPriceUsd: context('solPriceUsd'),
    platformWalletAddress: context('platformWalletAddress'),
    feePayerAddress: context('feePayerAddress'),
    payoutThresholdUsdc: context('payoutThresholdUsdc'),
  },
  llm: {
    provider: context('llmProvider') === 'openai' ? 'openai' : undefined,
    model: context('llmModel'),
    baseUrl: context('llmBaseUrl'),
    apiKeySecretArn: context('llmApiKeySecretArn'),
    inputUsdPerMTok: context('llmInputUsdPerMTok'),
    outputUsdPerMTok: context('llmOutputUsdPerMTok'),
  },
});

if (context('nag') === 'true') Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
