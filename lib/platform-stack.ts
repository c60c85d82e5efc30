// The whole platform: shared resources here, each area's routes in its own nested stack.
import { CfnOutput, Lazy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Route } from '../functions/platform/route.js';
import { deployedRoutes } from '../functions/routes.js';
import { Api } from './api.js';
import { AreaRoutes } from './area-routes.js';
import { BusConsumers } from './bus-consumers.js';
import { busConsumers } from '../functions/consumers.js';
import { scriptResourceCallFunction } from '../functions/scripts/routes.js';
import { Console } from './console.js';
import { Data } from './data.js';
import { DocumentVectors } from './documents.js';
import { Events } from './events.js';
import { type LlmSettings, type PlatformResources, grantFunction } from './grants.js';
import { suppressNagFindings } from './nag-suppressions.js';
import { PlatformFunction } from './platform-function.js';
import { Scheduler } from './scheduler.js';
import { PackageInstallers, Scripts } from './scripts.js';
import { Payouts } from './payouts.js';
import { PythonLint } from './python-lint.js';
import { Security } from './security.js';
import { Storage } from './storage.js';
import { envNames } from '../functions/platform/env-names.js';
import { TemplateBuilds } from './templates.js';
import { templateBuildStateConsumer } from '../functions/consumers.js';

export interface PlatformStackProps extends StackProps {
  /** The route table to deploy; the real one unless a test probes the stack with its own. */
  routes?: Route[];
  pagesDomain?: string;
  pagesCertificateArn?: string;
  /** On AWS, resource calls to loopback and private addresses are refused unless this is set. */
  allowPrivateUpstreams?: boolean;
  /** Where paid calls settle: `solana` or `solana-devnet` (default), its RPC URL, and the SOL price used to quote SOL. */
  solana?: { network?: string; rpcUrl?: string; solPriceUsd?: string; platformWalletAddress?: string; feePayerAddress?: string; payoutThresholdUsdc?: string };
  /** The language model of LLM flows; without a model they fail with LLM_NOT_CONFIGURED. */
  llm?: LlmSettings;
}

/** Route table slices in first-seen order, so adding a route never renames another area's stack. */
export function routesByArea(table: Route[]): [string, Route[]][] {
  const areas = new Map<string, Route[]>();
  for (const route of table) areas.set(route.area, [...(areas.get(route.area) ?? []), route]);
  return [...areas];
}

const pascal = (name: string) => name.replace(/(^|[-_])([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

export class PlatformStack extends Stack {
  readonly data: Data;
  readonly security: Security;
  readonly events: Events;
  readonly scheduler: Scheduler;
  readonly scripts: Scripts;
  readonly storage: Storage;
  readonly documentVectors: DocumentVectors;
  readonly templateBuilds: TemplateBuilds;
  readonly api: Api;
  readonly areas: AreaRoutes[];
  readonly consumers: BusConsumers;
  /** Invoked by Lambda-deployed scripts for their resource calls (functions/scripts/routes.ts). */
  readonly scriptResourceCall: PlatformFunction;
  readonly payouts: Payouts;
  readonly pythonLint: PythonLint;
  readonly packageInstallers: PackageInstallers;
  readonly console: Console;

  constructor(scope: Construct, id: string, props: PlatformStackProps = {}) {
    super(scope, id, { description: 'Automation marketplace platform', ...props });
    this.data = new Data(this, 'Data');
    this.security = new Security(this, 'Security');
    this.events = new Events(this, 'Events');
    this.scheduler = new Scheduler(this, 'Scheduler', { eventBus: this.events.bus });
    this.scripts = new Scripts(this, 'Scripts');
    this.storage = new Storage(this, 'Storage', { pagesDomain: props.pagesDomain, pagesCertificateArn: props.pagesCertificateArn });
    this.documentVectors = new DocumentVectors(this, 'DocumentVectors');
    this.templateBuilds = new TemplateBuilds(this, 'TemplateBuilds', { pagesBucket: this.storage.pagesBucket });
    const environment: Record<string, string> = {
      [envNames.allowPrivateUpstreams]: String(props.allowPrivateUpstreams ?? false),
      ...(props.solana?.network && { SOLANA_NETWORK: props.solana.network }),
      ...(props.solana?.rpcUrl && { SOLANA_RPC_URL: props.solana.rpcUrl }),
      ...(props.solana?.solPriceUsd && { SOL_PRICE_USD: props.solana.solPriceUsd }),
      // Public addresses: offers name them without reading a secret.
      ...(props.solana?.platformWalletAddress && { PLATFORM_WALLET_ADDRESS: props.solana.platformWalletAddress }),
      ...(props.solana?.feePayerAddress && { FEE_PAYER_ADDRESS: props.solana.feePayerAddress }),
      ...(props.solana?.payoutThresholdUsdc && { PAYOUT_THRESHOLD_USDC: props.solana.payoutThresholdUsdc }),
    };
    // Built before the resources it belongs to, granted once they exist (its own grants do not include itself).
    this.scriptResourceCall = PlatformFunction.fromSpec(this, scriptResourceCallFunction, environment);
    this.payouts = new Payouts(this, 'Payouts', { environment });
    this.pythonLint = new PythonLint(this, 'PythonLint');
    this.packageInstallers = new PackageInstallers(this, 'PackageInstallers', { packagesBucket: this.storage.scriptPackagesBucket });

    const resources: PlatformResources = {
      tables: this.data.tables,
      adminKeySecret: this.security.adminKeySecret,
      credentialsKey: this.security.credentialsKey,
      walletSecret: this.security.walletSecret,
      feePayerSecret: this.security.feePayerSecret,
      payoutFunction: this.payouts.fn,
      pythonLintFunction: this.pythonLint.fn,
      packageInstallers: { npm: this.packageInstallers.npm, pip: this.packageInstallers.pip },
      llm: props.llm,
      eventBus: this.events.bus,
      scheduleGroupName: this.scheduler.groupName,
      schedulerRole: this.scheduler.role,
      documentsBucket: this.storage.documentsBucket,
      documentVectorIndexArn: this.documentVectors.indexArn,
      scriptPackagesBucket: this.storage.scriptPackagesBucket,
      pagesBucket: this.storage.pagesBucket,
      pagesBaseUrl: this.storage.pagesBaseUrl,
      // Only announced to functions when CloudFront can actually answer <sub>.<pagesDomain>.
      pagesDomain: this.storage.hasCustomCertificate ? props.pagesDomain : undefined,
      // The console is built after the API (it forwards /api/* there), and the API with these resources.
      runLinksBaseUrl: Lazy.string({ produce: () => this.console.url }),
      scriptRoleBoundary: this.scripts.roleBoundary,
      scriptFunctionPrefix: this.scripts.functionPrefix,
      scriptRuntimeLayerArn: this.scripts.runtimeLayer.layerVersionArn,
      scriptGrantKeySecret: this.security.scriptGrantKeySecret,
      scriptResourceCallFunction: this.scriptResourceCall,
      templateBuilds: { project: this.templateBuilds.project, logGroup: this.templateBuilds.logGroup },
    };
    grantFunction(this.scriptResourceCall, scriptResourceCallFunction, resources);
    this.scripts.allowResourceCalls(this.scriptResourceCall);
    this.payouts.grant(resources);
    this.api = new Api(this, 'Api', { resources });
    const routeTable = props.routes ?? deployedRoutes;
    this.areas = routesByArea(routeTable).map(
      ([area, slice]) =>
        new AreaRoutes(this, `${pascal(area)}Routes`, {
          area,
          routes: slice,
          httpApi: this.api.httpApi,
          apiKeyAuthorizer: this.api.authorizer,
          resources,
          environment,
        }),
    );
    this.api.throttlePublicRoutes(routeTable, this.areas);

    this.consumers = new BusConsumers(this, 'BusConsumers', {
      consumers: busConsumers,
      bus: this.events.bus,
      deadLetterQueue: this.events.deadLetterQueue,
      resources,
      environment,
    });

    this.templateBuilds.routeStateChanges(templateBuildStateConsumer, resources, environment, this.events.deadLetterQueue);

    this.console = new Console(this, 'Console', { apiUrl: this.api.url });

    new CfnOutput(this, 'ConsoleUrl', { value: this.console.url, description: 'The web console (CloudFront; /api/* reaches the HTTP API)' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'PagesUrl', {
      value: `https://${this.storage.distribution.distributionDomainName}`,
      description: 'CloudFront URL of template pages (/pages/<sub>/)',
    });
    new CfnOutput(this, 'AdminKeySecretArn', { value: this.security.adminKeySecret.secretArn, description: 'Secret holding the X-Admin-Key value' });
    new CfnOutput(this, 'EventBusName', { value: this.events.bus.eventBusName });

    suppressNagFindings(this);
  }
}
