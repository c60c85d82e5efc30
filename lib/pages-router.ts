// CloudFront Function (cloudfront-js-2.0) in front of the pages bucket: every template site lives under the S3 prefix `<sub>/`.
//   https://<sub>.<pagesDomain>/a/b  ->  /<sub>/a/b          (host form, needs the domain on the distribution)
//   https://<cloudfront>/pages/<sub>/a/b  ->  /<sub>/a/b     (path form, always available)
// Directory-like paths get `index.html`, so static-site builds work without S3 website hosting.

/** Source of the viewer-request function; plain ES5-style JavaScript as CloudFront Functions run it. */
export function pagesRouterCode(pagesDomain?: string): string {
  return `var PAGES_DOMAIN = ${JSON.stringify((pagesDomain ?? '').toLowerCase())};
var LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function notFound() {
  return { statusCode: 404, statusDescription: 'Not Found' };
}

function handler(event) {
  var request = event.request;
  var host = request.headers.host ? request.headers.host.value.toLowerCase() : '';
  var sub;
  var rest;
  if (PAGES_DOMAIN && host.endsWith('.' + PAGES_DOMAIN)) {
    sub = host.slice(0, host.length - PAGES_DOMAIN.length - 1);
    rest = request.uri;
  } else if (request.uri.indexOf('/pages/') === 0) {
    var path = request.uri.slice('/pages/'.length);
    var slash = path.indexOf('/');
    if (slash === -1) {
      // Without the trailing slash, relative links of the page would resolve one level too high.
      if (!LABEL.test(path)) return notFound();
      return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/pages/' + path + '/' } } };
    }
    sub = path.slice(0, slash);
    rest = path.slice(slash);
  } else {
    return notFound();
  }
  if (!LABEL.test(sub)) return notFound();
  if (rest.endsWith('/')) rest += 'index.html';
  else if (rest.slice(rest.lastIndexOf('/') + 1).indexOf('.') === -1) rest += '/index.html';
  request.uri = '/' + sub + rest;
  return request;
}
`;
}
