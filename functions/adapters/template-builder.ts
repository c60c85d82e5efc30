import { join } from 'node:path';
import { config } from '#platform/config.js';
import type { BuildOutcome } from '#functions/templates/model.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import { createCodeBuildTemplateBuilder } from './aws/codebuild-template-builder.js';
import { childProcessRunner, stopRunningBuilds } from './local/build-runner.js';
import { onLocalShutdown } from './local/lifecycle.js';
import { createLocalTemplateBuilder } from './local/template-builder.js';

export function templateBuilder(options: { timeoutMs: () => number; onOutcome: (outcome: BuildOutcome & { logs: string[] }) => Promise<unknown> }): TemplateBuilder {
  if (config.mode !== 'local') return createCodeBuildTemplateBuilder();
  onLocalShutdown(stopRunningBuilds);
  const pagesDir = join(config.dataDir, 'pages');
  return createLocalTemplateBuilder({ pagesDir, workDir: join(config.dataDir, 'template-builds'), runner: childProcessRunner, ...options });
}

/** Locally `http://<sub>.localhost:PORT/`; on AWS `https://<sub>.<PAGES_DOMAIN>/`, or the path form without a domain. */
export function templatePagesHost(): PagesHost {
  if (config.mode === 'local') {
    return {
      pageUrl(subdomain, apiBaseUrl) {
        const url = new URL(apiBaseUrl);
        return `${url.protocol}//${subdomain}.localhost${url.port ? `:${url.port}` : ''}/`;
      },
      pathUrl: (subdomain, apiBaseUrl) => `${apiBaseUrl}/pages/${subdomain}/`,
    };
  }
  const pathUrl = (subdomain: string) => `${process.env.PAGES_BASE_URL}/${subdomain}/`;
  return {
    pageUrl: (subdomain) => (process.env.PAGES_DOMAIN ? `https://${subdomain}.${process.env.PAGES_DOMAIN}/` : pathUrl(subdomain)),
    pathUrl,
  };
}
