// A local stand-in for Lambda's Invoke API (POST /2015-03-31/functions/<name>/invocations), for code that invokes a
// function through an AWS SDK pointed here with AWS_ENDPOINT_URL_LAMBDA. Each body goes to a real handler.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LambdaInvokeApi {
  endpoint: string;
  /** Function names invoked, in order. */
  invoked: string[];
  close(): Promise<void>;
}

/** Serves the functions named in `functions` only; any other name is Lambda's 404 ResourceNotFoundException. A handler that throws is a function error. */
export async function startLambdaInvokeApi(functions: Record<string, (payload: any) => Promise<unknown>>): Promise<LambdaInvokeApi> {
  const invoked: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const name = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(request.url ?? '')?.[1];
      if (request.method !== 'POST' || !name) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not an Invoke request"}');
        return;
      }
      invoked.push(decodeURIComponent(name));
      const handler = Object.hasOwn(functions, decodeURIComponent(name)) ? functions[decodeURIComponent(name)] : undefined;
      if (!handler) {
        response
          .writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' })
          .end(JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }));
        return;
      }
      const headers = { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' };
      try {
        const result = await handler(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
        response.writeHead(200, headers).end(JSON.stringify(result));
      } catch (error) {
        // As Lambda answers a function that threw or ran out of time: 200, the error in the body, flagged in a header.
        response
          .writeHead(200, { ...headers, 'x-amz-function-error': 'Unhandled' })
          .end(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message }));
      }
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invoked,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
