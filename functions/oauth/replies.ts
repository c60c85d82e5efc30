// How the OAuth endpoints answer: bare JSON (OAuth clients parse no envelope), never cached when it carries a token or
// an error (RFC 6749 §5.1), readable by browser-based clients.
import { Reply } from '#platform/http.js';
import { OAuthError } from './errors.js';

const openToBrowsers = { 'Access-Control-Allow-Origin': '*' };
const noStore = { ...openToBrowsers, 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const metadataReply = (metadata: object) => new Reply(200, metadata, { ...openToBrowsers, 'Cache-Control': 'public, max-age=3600' });

/** `work`'s answer, or its OAuthError as `{error, error_description}`; any other error goes to the platform's mapping. */
export async function oauthReply(work: () => Promise<object>, status = 200): Promise<Reply> {
  try {
    return new Reply(status, await work(), noStore);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const challenge: Record<string, string> = error.status === 401 ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {};
    return new Reply(error.status, { error: error.error, error_description: error.description }, { ...noStore, ...challenge });
  }
}
