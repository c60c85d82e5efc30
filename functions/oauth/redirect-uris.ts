// Which redirect URIs a client may register (OAuth 2.1 §2.3.1, RFC 8252 §7.3): https anywhere, plain http only to the
// loopback interface, where a native app listens on a port of its own; never a fragment or credentials in the URI.

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

export const maxRedirectUriLength = 2000;

/** Why `uri` cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > maxRedirectUriLength) return `longer than ${maxRedirectUriLength} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not an absolute URI';
  }
  if (uri.includes('#')) return 'a redirect URI may not carry a fragment';
  if (url.username || url.password) return 'a redirect URI may not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return undefined;
  return 'must be https, or http to localhost, 127.0.0.1 or [::1]';
}
