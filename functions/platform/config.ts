// Runtime settings, read from the environment on each access so the local runtime and tests can set them.

export type PlatformMode = 'aws' | 'local';

export const config = {
  get mode(): PlatformMode {
    return process.env.PLATFORM_MODE === 'local' ? 'local' : 'aws';
  },
  get region(): string {
    return process.env.AWS_REGION ?? 'us-east-1';
  },
  get dynamoEndpoint(): string | undefined {
    return process.env.DYNAMODB_ENDPOINT;
  },
  get dataDir(): string {
    return process.env.DATA_DIR ?? '.data';
  },
  get version(): string {
    return process.env.PLATFORM_VERSION ?? '0.1.0';
  },
  /** Requests per minute per API key (DESIGN.md §3). */
  get requestsPerMinute(): number {
    return Number(process.env.RATE_LIMIT_PER_MINUTE ?? 1000);
  },
};
