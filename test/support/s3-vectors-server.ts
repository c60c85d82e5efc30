// A local stand-in of the Amazon S3 Vectors data plane (REST-JSON over HTTP: POST /PutVectors, /QueryVectors,
// /GetVectors, /DeleteVectors), for testing the adapter at its HTTP boundary: one in-memory index of cosine distance, metadata
// filters with $eq, and the service's limits (500 vectors per put, 500 keys per delete, 100 keys per get, topK at
// most 100).
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Stored {
  data: number[];
  metadata: Record<string, unknown>;
}

export interface S3VectorsServer {
  endpoint: string;
  /** Every call received, by operation, with the index (ARN) it named and whether it was signed. */
  calls: Array<{ operation: string; indexArn: string; signed: boolean; count: number }>;
  stored: Map<string, Stored>;
  stop(): Promise<void>;
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((value, at) => {
    dot += value * b[at]!;
    normA += value * value;
    normB += b[at]! * b[at]!;
  });
  return dot / Math.sqrt(normA * normB);
};

const matches = (metadata: Record<string, unknown>, filter: Record<string, { $eq: unknown }> | undefined) =>
  !filter || Object.entries(filter).every(([key, condition]) => metadata[key] === condition.$eq);

export async function startS3VectorsServer(): Promise<S3VectorsServer> {
  const stored = new Map<string, Stored>();
  const calls: S3VectorsServer['calls'] = [];
  const fail = (response: ServerResponse, status: number, message: string) =>
    response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': 'ValidationException' }).end(JSON.stringify({ message }));

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const operation = (request.url ?? '').slice(1);
    const signed = String(request.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256');
    switch (operation) {
      case 'PutVectors': {
        calls.push({ operation, indexArn: body.indexArn, signed, count: body.vectors.length });
        if (body.vectors.length > 500) return fail(response, 400, 'at most 500 vectors per call');
        for (const vector of body.vectors) stored.set(vector.key, { data: vector.data.float32, metadata: vector.metadata ?? {} });
        return response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
      case 'QueryVectors': {
        calls.push({ operation, indexArn: body.indexArn, signed, count: body.topK });
        if (body.topK > 100) return fail(response, 400, 'topK is at most 100');
        const vectors = [...stored]
          .filter(([, vector]) => matches(vector.metadata, body.filter))
          .map(([key, vector]) => ({ key, distance: 1 - cosine(body.queryVector.float32, vector.data), metadata: vector.metadata }))
          .sort((a, b) => a.distance - b.distance)
          .slice(0, body.topK);
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ vectors, distanceMetric: 'cosine' }));
      }
      case 'GetVectors': {
        calls.push({ operation, indexArn: body.indexArn, signed, count: body.keys.length });
        if (body.keys.length > 100) return fail(response, 400, 'at most 100 keys per call');
        const vectors = body.keys.flatMap((key: string) => {
          const vector = stored.get(key);
          return vector ? [{ key, ...(body.returnData && { data: { float32: vector.data } }), ...(body.returnMetadata && { metadata: vector.metadata }) }] : [];
        });
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ vectors }));
      }
      case 'DeleteVectors': {
        calls.push({ operation, indexArn: body.indexArn, signed, count: body.keys.length });
        if (body.keys.length > 500) return fail(response, 400, 'at most 500 keys per call');
        for (const key of body.keys) stored.delete(key);
        return response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
      default:
        return fail(response, 404, `unknown operation ${operation}`);
    }
  }

  const server = createServer((request, response) => void handle(request, response).catch((error: Error) => fail(response, 500, error.message)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, calls, stored, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
