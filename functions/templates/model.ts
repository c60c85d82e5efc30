// Records of the templates area as stored, and the shapes the interface answers with.
import type { CustomizationField, TemplateManifest, TemplatePricing } from './schemas.js';

export type TemplateStatus = 'draft' | 'published';
export type BuildStatus = 'building' | 'success' | 'failed';

export interface TemplateItem {
  templateId: string;
  ownerId: string;
  name: string;
  description: string;
  category: string | null;
  tags: string[];
  repository: string;
  templatePath: string;
  /** The newest version and its commit. */
  version: string;
  gitHash: string;
  status: TemplateStatus;
  /** Set only while published: the sparse marketplace index holds published templates alone. */
  listing?: 'published';
  pricing: TemplatePricing | null;
  /** Where the template's own preview build is served (a DNS label). */
  previewSubdomain: string;
  /** The last successful build of the template itself: what installs build from. */
  builtVersion: string | null;
  buildId: string | null;
  buildStatus: BuildStatus | null;
  buildOutput: string | null;
  manifest: TemplateManifest | null;
  installCount: number;
  ratingSum: number;
  reviewCount: number;
  createdAt: string;
  updatedAt: string;
  /** Absent, never null, until the first publish: it keys the marketplace index, which refuses a null. */
  publishedAt?: string;
}

export interface TemplateVersion {
  templateId: string;
  version: string;
  versionId: string;
  gitHash: string;
  changelog: string | null;
  createdAt: string;
}

/** One run of the builder: the template's own preview, or one installation's customised copy. */
export interface BuildRecord {
  buildId: string;
  templateId: string;
  /** Who started it: the template's owner, or the installer. */
  userId: string;
  installationId: string | null;
  version: string;
  gitHash: string;
  repository: string;
  templatePath: string;
  subdomain: string;
  /** NEXT_PUBLIC_* values of an installation build. */
  publicEnv: Record<string, string>;
  status: BuildStatus;
  /** Why a build failed, in one sentence. */
  reason: string | null;
  buildOutput: string | null;
  cdnUrl: string | null;
  manifest: TemplateManifest | null;
  /** The runner's own id (a CodeBuild build id on AWS). */
  runId: string | null;
  logs: string[];
  startedAt: string;
  finishedAt: string | null;
}

export interface TemplateInstallation {
  installationId: string;
  templateId: string;
  templateName: string;
  userId: string;
  version: string;
  gitHash: string;
  subdomain: string;
  customization: Record<string, string | number | boolean>;
  installedScripts: string[];
  installedResources: string[];
  /** The dependencies that were installed before this template came: uninstall leaves them. */
  preexisting: { scripts: string[]; resources: string[] };
  status: 'active';
  buildId: string;
  buildStatus: BuildStatus;
  installedAt: string;
  updatedAt: string;
}

/** What the builder reports when a build ends (locally from the child process, on AWS from EventBridge). */
export interface BuildOutcome {
  buildId: string;
  status: 'success' | 'failed';
  reason?: string;
  manifest?: TemplateManifest;
  /** Files published, for `buildOutput`. */
  fileCount?: number;
  bytes?: number;
}

export const summaryView = (item: TemplateItem) => ({
  id: item.templateId,
  name: item.name,
  status: item.status,
  version: item.version,
  installCount: item.installCount,
  createdAt: item.createdAt,
});

export const averageRating = (item: TemplateItem) => (item.reviewCount ? Math.round((item.ratingSum / item.reviewCount) * 100) / 100 : 0);

export const templateView = (item: TemplateItem) => ({
  ...summaryView(item),
  description: item.description,
  category: item.category,
  tags: item.tags,
  repository: item.repository,
  templatePath: item.templatePath,
  gitHash: item.gitHash,
  ownerId: item.ownerId,
  pricing: item.pricing,
  buildStatus: item.buildStatus,
  buildId: item.buildId,
  builtVersion: item.builtVersion,
  buildOutput: item.buildOutput,
  customization: item.manifest?.customization ?? [],
  dependencies: item.manifest?.dependencies ?? { scripts: [], resources: [] },
  rating: averageRating(item),
  reviewCount: item.reviewCount,
  updatedAt: item.updatedAt,
  publishedAt: item.publishedAt ?? null,
});

export const marketplaceView = (item: TemplateItem) => ({
  id: item.templateId,
  name: item.name,
  description: item.description,
  category: item.category,
  tags: item.tags,
  version: item.builtVersion ?? item.version,
  pricing: { setupFee: item.pricing?.setupFee ?? 0, monthlyFee: item.pricing?.monthlyFee ?? 0 },
  rating: averageRating(item),
  installCount: item.installCount,
});

export const buildView = (build: BuildRecord, logs: string[] = build.logs) => ({
  buildId: build.buildId,
  templateId: build.templateId,
  installationId: build.installationId,
  version: build.version,
  gitHash: build.gitHash,
  buildStatus: build.status,
  buildOutput: build.buildOutput,
  cdnUrl: build.cdnUrl,
  reason: build.reason,
  logs,
  startedAt: build.startedAt,
  finishedAt: build.finishedAt,
});

export const installationView = (installation: TemplateInstallation) => {
  const { preexisting: _preexisting, ...view } = installation;
  return view;
};

export type { CustomizationField };
