// What the documents tests share: the texts of the files they build, upload and polling helpers.
import type { TestApi, TestUser } from './platform.js';
import { toBase64 } from './document-files.js';

export const mime = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
} as const;

/** A three-page handbook: each page on its own topic, so a question has one right page. */
export const handbookPages = [
  [
    'Company history. Northwind Cycles was founded in 1998 in Lisbon by two engineers who wanted to build durable city bicycles.',
    'The first workshop was a small garage near the river, and the first hundred bikes were sold to friends and neighbours.',
  ],
  [
    'Warranty and repairs. Every bicycle frame carries a ten-year warranty against manufacturing defects.',
    'Brakes, chains and tyres wear out with use and are covered for six months. To claim a repair, bring the bike and the receipt to any partner shop.',
  ],
  ['Delivery. Orders within Portugal arrive in two working days. Shipping to the rest of Europe takes up to a week and costs 25 euros.'],
];

export async function upload(
  api: TestApi,
  user: TestUser,
  file: { bytes: Uint8Array | string; filename: string; mimeType: string },
  extra: Record<string, unknown> = {},
) {
  return api.as(user.apiKey).post('/api/sdk/v1/documents/upload', { file: toBase64(file.bytes), filename: file.filename, mimeType: file.mimeType, ...extra });
}

/** Polls the status until processing has finished; bounded by count, not by time. */
export async function settled(api: TestApi, user: TestUser, documentId: string): Promise<{ status: string; [field: string]: unknown }> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await api.as(user.apiKey).get(`/api/sdk/v1/documents/${documentId}/status`);
    if (response.body.data?.status !== 'processing') return response.body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`document ${documentId} was still processing after 600 polls`);
}

export const search = (api: TestApi, user: TestUser, body: Record<string, unknown>) => api.as(user.apiKey).post('/api/sdk/v1/documents/search', body);

export const encodedGraph = (graphId: string) => encodeURIComponent(graphId);
