// The console's one way to the platform: the typed client over the page's own origin (locally the local server, on
// AWS the CloudFront distribution that routes /api/* to the HTTP API), with the API key kept in session storage.
import { type PlatformClient, PlatformError, createPlatformClient, unwrap } from '../../clients/typescript/src/index';

const keyName = 'platform.apiKey';
let current: PlatformClient | undefined;

export const storedKey = () => sessionStorage.getItem(keyName) ?? undefined;

export function api(): PlatformClient {
  current ??= createPlatformClient({ baseUrl: location.origin, apiKey: storedKey() });
  return current;
}

/** A client that sends no key: an approval's signed link carries its own token. */
export const keylessApi = (): PlatformClient => createPlatformClient({ baseUrl: location.origin });

export async function signIn(apiKey: string) {
  const candidate = createPlatformClient({ baseUrl: location.origin, apiKey });
  const me = await unwrap(candidate.GET('/api/sdk/v1/me'));
  sessionStorage.setItem(keyName, apiKey);
  current = candidate;
  return me;
}

export function signOut() {
  sessionStorage.removeItem(keyName);
  current = undefined;
}

/** Local mode only: the local server hands the dev account's key to a browser on the same machine. */
export async function devApiKey(): Promise<string | undefined> {
  const response = await fetch('/console/dev-account.json').catch(() => undefined);
  if (!response?.ok) return undefined;
  const body = (await response.json().catch(() => undefined)) as { apiKey?: string } | undefined;
  return body?.apiKey;
}

/** The API's own words: `CODE: message`, and the field a validation error names. */
export function describeError(error: unknown): string {
  if (error instanceof PlatformError) {
    const field = typeof error.details?.field === 'string' ? ` (field ${error.details.field})` : '';
    return `${error.code}: ${error.message}${field}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export { unwrap };

/** XMLHttpRequest behind fetch's signature: fetch cannot report how much of a request body is sent. */
function progressFetch(onProgress: (percent: number) => void): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url);
      request.headers.forEach((value, name) => {
        xhr.setRequestHeader(name, value);
      });
      xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(Math.round((event.loaded / event.total) * 100));
      xhr.onload = () =>
        resolve(
          new Response(xhr.responseText, {
            status: xhr.status,
            headers: Object.fromEntries(
              xhr
                .getAllResponseHeaders()
                .trim()
                .split(/\r?\n/)
                .filter(Boolean)
                .map((line) => line.split(/:\s*/, 2) as [string, string]),
            ),
          }),
        );
      xhr.onerror = () => reject(new TypeError('network error during the upload'));
      void request.text().then((body) => xhr.send(body), reject);
    });
}

/** The typed client for one upload, reporting the share of the body sent. */
export const uploadClient = (onProgress: (percent: number) => void) =>
  createPlatformClient({ baseUrl: location.origin, apiKey: storedKey(), fetch: progressFetch(onProgress) });
