import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx, buildPdf } from '../support/document-files.js';
import { encodedGraph, handbookPages, mime, search, settled, upload } from '../support/documents.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
let handbook: { documentId: string; chunkCount: number };

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  const uploaded = await upload(
    api,
    owner,
    { bytes: await buildPdf(handbookPages), filename: 'handbook.pdf', mimeType: mime.pdf },
    { title: 'Northwind handbook', author: 'Ops', productTags: ['bikes'] },
  );
  handbook = uploaded.body.data;
});
afterAll(() => api.stop());

describe('documents: upload and extraction', () => {
  it('processes a small PDF within the request and records each chunk on its page', async () => {
    // Prepare
    const pdf = await buildPdf(handbookPages);
    // Act
    const uploaded = await upload(api, owner, { bytes: pdf, filename: 'pages.pdf', mimeType: mime.pdf });
    const chunks = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${uploaded.body.data.documentId}/chunks`);
    // Assess
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.data).toMatchObject({ documentId: expect.stringMatching(/^doc_/), status: 'completed', graphIds: [`user:${owner.userId}`] });
    expect(uploaded.body.data.processingTimeMs).toBeGreaterThanOrEqual(0);
    const list = chunks.body.data.chunks as Array<{ content: string; pageNumber: number; position: number; charOffset: number }>;
    expect(chunks.body.data.count).toBe(uploaded.body.data.chunkCount);
    expect(list.map((chunk) => chunk.position)).toEqual(list.map((_, index) => index));
    expect(list.find((chunk) => chunk.content.includes('ten-year warranty'))?.pageNumber).toBe(2);
    expect(list.find((chunk) => chunk.content.includes('Northwind Cycles was founded'))?.pageNumber).toBe(1);
    expect(list.find((chunk) => chunk.content.includes('25 euros'))?.pageNumber).toBe(3);
    expect(list.every((chunk, index) => index === 0 || chunk.charOffset > list[index - 1]!.charOffset)).toBe(true);
  });

  it('cuts a DOCX into pages at its page breaks and keeps headings readable', async () => {
    // Prepare
    const docx = await buildDocx([
      { heading: 'Onboarding', paragraphs: ['New colleagues receive a laptop and a badge on their first morning.'] },
      { heading: 'Vacation policy', paragraphs: ['Full-time employees receive 25 days of paid vacation per year, plus public holidays.'] },
    ]);
    // Act
    const uploaded = await upload(api, owner, { bytes: docx, filename: 'policies.docx', mimeType: mime.docx });
    const document = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${uploaded.body.data.documentId}`);
    // Assess
    expect(uploaded.body.data.status).toBe('completed');
    const chunks = document.body.data.chunks as Array<{ content: string; pageNumber: number; heading: string | null }>;
    expect(chunks.find((chunk) => chunk.content.includes('laptop'))).toMatchObject({ pageNumber: 1, heading: 'Onboarding' });
    expect(chunks.find((chunk) => chunk.content.includes('25 days of paid vacation'))).toMatchObject({ pageNumber: 2, heading: 'Vacation policy' });
    expect(chunks.some((chunk) => chunk.content.includes('Vacation policy'))).toBe(false);
  });

  it('keeps HTML headings and table rows readable, and Markdown without its markup, with no page numbers', async () => {
    // Prepare
    const html =
      '<html><body><nav>Home | About</nav><h1>Price list</h1><p>Our plans for teams.</p><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>10 USD</td></tr><tr><td>Pro</td><td>30 USD</td></tr></table></body></html>';
    const markdown = '# Release notes\n\nVersion **2.0** adds [dark mode](https://example.test/dark) and faster sync.\n\n## Fixes\n\n- Crash on start fixed.';
    // Act
    const fromHtml = await upload(api, owner, { bytes: html, filename: 'prices.html', mimeType: 'text/html; charset=utf-8' });
    const fromMarkdown = await upload(api, owner, { bytes: markdown, filename: 'notes.md', mimeType: mime.markdown });
    const htmlChunks = (await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${fromHtml.body.data.documentId}/chunks`)).body.data.chunks;
    const markdownChunks = (await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${fromMarkdown.body.data.documentId}/chunks`)).body.data.chunks;
    // Assess
    const htmlText = htmlChunks.map((chunk: { content: string }) => chunk.content).join('\n');
    expect(htmlChunks.map((chunk: { heading: string | null }) => chunk.heading)).toEqual(['Price list']);
    expect(htmlText).toMatch(/Basic\s+10 USD/);
    expect(htmlText).toMatch(/Pro\s+30 USD/);
    expect(htmlText).not.toContain('Home | About');
    const markdownText = markdownChunks.map((chunk: { content: string }) => chunk.content).join('\n');
    expect(markdownText).toContain('Version 2.0 adds dark mode and faster sync.');
    expect(markdownText).not.toMatch(/[#*[\]]/);
    expect([...htmlChunks, ...markdownChunks].every((chunk: { pageNumber: number | null }) => chunk.pageNumber === null)).toBe(true);
  });

  it('reads CSV rows and JSON leaves as named values', async () => {
    // Prepare
    const csv = 'city,population\n"Lisbon, Portugal",545000\nPorto,232000\n';
    const json = JSON.stringify([{ name: 'Alice', team: { name: 'Payments' } }]);
    // Act
    const fromCsv = await upload(api, owner, { bytes: csv, filename: 'cities.csv', mimeType: mime.csv });
    const fromJson = await upload(api, owner, { bytes: json, filename: 'people.json', mimeType: mime.json });
    const csvText = (await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${fromCsv.body.data.documentId}/chunks`)).body.data.chunks[0].content;
    const jsonText = (await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${fromJson.body.data.documentId}/chunks`)).body.data.chunks[0].content;
    // Assess
    expect(csvText).toContain('city: Lisbon, Portugal\npopulation: 545000');
    expect(jsonText).toContain('[0].team.name: Payments');
  });

  it('ends a corrupt file as failed with the reason', async () => {
    // Act
    const uploaded = await upload(api, owner, { bytes: '%PDF-1.4 this is not really a PDF', filename: 'broken.pdf', mimeType: mime.pdf });
    const status = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${uploaded.body.data.documentId}/status`);
    // Assess
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.data).toMatchObject({ status: 'failed', chunkCount: 0, failureReason: expect.stringContaining('PDF') });
    expect(status.body.data).toMatchObject({ status: 'failed', chunkCount: 0, failureReason: expect.stringContaining('PDF') });
  });

  it('processes a large upload in the background: processing, then completed', async () => {
    // Prepare: 70 KB of attachment push the PDF past the synchronous size
    const pdf = await buildPdf(handbookPages, { attachmentBytes: 70 * 1024 });
    // Act
    const uploaded = await upload(api, owner, { bytes: pdf, filename: 'large.pdf', mimeType: mime.pdf });
    const final = await settled(api, owner, uploaded.body.data.documentId);
    // Assess
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.data).toMatchObject({ status: 'processing', chunkCount: 0 });
    expect(final).toMatchObject({ status: 'completed', chunkCount: handbook.chunkCount, failureReason: null });
    expect(final.processingTimeMs).toBeGreaterThanOrEqual(0);
  });

  it('takes a file through an upload URL: PUT the bytes, then complete', async () => {
    // Prepare
    const pdf = await buildPdf(handbookPages);
    const ticket = await api.as(owner.apiKey).post('/api/sdk/v1/documents/upload-url', { filename: 'via-url.pdf', mimeType: mime.pdf, size: pdf.length });
    // Act
    const before = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${ticket.body.data.documentId}/complete`);
    const put = await fetch(ticket.body.data.uploadUrl, { method: 'PUT', headers: ticket.body.data.headers, body: pdf });
    const completed = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${ticket.body.data.documentId}/complete`);
    const again = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${ticket.body.data.documentId}/complete`);
    // Assess
    expect(ticket.status).toBe(201);
    expect(ticket.body.data).toMatchObject({ status: 'uploading', method: 'PUT', maxBytes: pdf.length });
    expect(before.status).toBe(409);
    expect(put.status).toBe(200);
    expect(completed.body.data).toMatchObject({ status: 'completed', chunkCount: handbook.chunkCount });
    expect(again.status).toBe(409);
  });

  it('refuses a PUT larger than the size the upload URL was signed for, and stores nothing', async () => {
    // Prepare
    const ticket = await api.as(owner.apiKey).post('/api/sdk/v1/documents/upload-url', { filename: 'small.txt', mimeType: mime.text, size: 10 });
    // Act
    const put = await fetch(ticket.body.data.uploadUrl, { method: 'PUT', headers: ticket.body.data.headers, body: 'x'.repeat(1000) });
    const completed = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${ticket.body.data.documentId}/complete`);
    // Assess
    expect(put.status).toBe(400);
    expect(completed.status).toBe(409);
  });
});

describe('documents: search', () => {
  it('finds the right chunk for a paraphrased question, above the default threshold', async () => {
    // Act
    const response = await search(api, owner, { query: 'How long is the guarantee on the bike frame?' });
    // Assess
    expect(response.status).toBe(200);
    const [best] = response.body.data.results;
    expect(best).toMatchObject({ documentId: expect.any(String), pageNumber: 2, content: expect.stringContaining('ten-year warranty') });
    expect(best.score).toBeGreaterThanOrEqual(0.7);
    expect(best.score).toBeLessThanOrEqual(1);
    expect(response.body.data.count).toBe(response.body.data.results.length);
    expect(response.body.data.results.every((result: { score: number }) => result.score >= 0.7)).toBe(true);
  });

  it('answers nothing above the threshold for an unrelated question', async () => {
    // Act
    const response = await search(api, owner, { query: 'What is the boiling point of liquid nitrogen?' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ results: [], count: 0 });
  });

  it('names the document by its title and honours limit and threshold', async () => {
    // Prepare: a graph holding only a titled handbook (the personal graph also holds untitled copies of its pages,
    // whose chunks score exactly the same)
    const graph = await api.as(owner.apiKey).post('/api/sdk/v1/graphs', { name: 'Handbook only' });
    await upload(
      api,
      owner,
      { bytes: await buildPdf(handbookPages), filename: 'handbook.pdf', mimeType: mime.pdf },
      { title: 'Northwind handbook', graphId: graph.body.data.graphId },
    );
    // Act
    const response = await search(api, owner, { query: 'bicycle repairs and warranty', graphId: graph.body.data.graphId, limit: 2, threshold: 0 });
    // Assess
    expect(response.body.data.results).toHaveLength(2);
    expect(response.body.data.results[0].score).toBeGreaterThanOrEqual(response.body.data.results[1].score);
    expect(response.body.data.results.some((result: { documentName: string }) => result.documentName === 'Northwind handbook')).toBe(true);
  });
});

describe('documents: graphs, unshare and delete', () => {
  it('refuses to unshare the primary graph with 409 and keeps the document there', async () => {
    // Act
    const refused = await api.as(owner.apiKey).delete(`/api/sdk/v1/documents/${handbook.documentId}/share/${encodedGraph(`user:${owner.userId}`)}`);
    const graphs = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${handbook.documentId}/graphs`);
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(graphs.body.data.graphs).toEqual([
      {
        graphId: `user:${owner.userId}`,
        graphType: 'personal',
        graphName: 'Personal',
        isPrimary: true,
        sharedAt: expect.any(Number),
        sharedByUserId: owner.userId,
        shareReason: null,
      },
    ]);
  });

  it('deletes a shared document from every graph and from every search', async () => {
    // Prepare
    const uploaded = await upload(api, owner, {
      bytes: 'Our cafeteria serves vegetarian lasagne every Thursday at noon.',
      filename: 'menu.txt',
      mimeType: mime.text,
    });
    const { documentId, chunkCount } = uploaded.body.data;
    const group = (await api.as(owner.apiKey).post('/api/sdk/v1/graphs', { name: 'Kitchen' })).body.data.graphId;
    await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: group, shareReason: 'menu for the team' });
    const question = { query: 'Which day is vegetarian lasagne served in the canteen?' };
    const foundBefore = await Promise.all([search(api, owner, question), search(api, owner, { ...question, graphId: group })]);
    // Act
    const deleted = await api.as(owner.apiKey).delete(`/api/sdk/v1/documents/${documentId}`);
    const foundAfter = await Promise.all([search(api, owner, question), search(api, owner, { ...question, graphId: group })]);
    const read = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}`);
    const listed = await api.as(owner.apiKey).get(`/api/sdk/v1/documents?graphId=${encodedGraph(group)}`);
    // Assess
    expect(foundBefore.map((found) => found.body.data.results[0]?.documentId)).toEqual([documentId, documentId]);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true, data: { documentId, chunksDeleted: chunkCount } });
    expect(foundAfter.map((found) => found.body.data.results.filter((result: { documentId: string }) => result.documentId === documentId))).toEqual([[], []]);
    expect(read.status).toBe(404);
    expect(listed.body.data).toMatchObject({ documents: [], count: 0, total: 0 });
  });

  it('lists the documents of the personal graph, newest first, with pagination', async () => {
    // Act
    const first = await api.as(owner.apiKey).get('/api/sdk/v1/documents?limit=2');
    const second = await api.as(owner.apiKey).get('/api/sdk/v1/documents?limit=2&offset=2');
    // Assess
    expect(first.body.data).toMatchObject({ count: 2, limit: 2, offset: 0 });
    expect(first.body.data.total).toBeGreaterThan(3);
    expect(first.body.data.documents[0]).toEqual({
      documentId: expect.any(String),
      filename: expect.any(String),
      title: expect.any(String),
      author: null,
      chunkCount: expect.any(Number),
      uploadedAt: expect.any(Number),
      productTags: [],
      status: expect.any(String),
    });
    expect(first.body.data.documents[0].uploadedAt).toBeGreaterThanOrEqual(first.body.data.documents[1].uploadedAt);
    expect(second.body.data.documents.map((document: { documentId: string }) => document.documentId)).not.toContain(first.body.data.documents[0].documentId);
  });
});

describe('documents: isolation between users', () => {
  it("never shows one user's document or personal graph to another", async () => {
    // Prepare
    const paths = ['', '/status', '/chunks', '/graphs'].map((suffix) => `/api/sdk/v1/documents/${handbook.documentId}${suffix}`);
    // Act
    const reads = await Promise.all(paths.map((path) => api.as(stranger.apiKey).get(path)));
    const searched = await search(api, stranger, { query: 'bike frame warranty', graphId: `user:${owner.userId}` });
    const listed = await api.as(stranger.apiKey).get(`/api/sdk/v1/documents?graphId=${encodedGraph(`user:${owner.userId}`)}`);
    const shared = await api.as(stranger.apiKey).post(`/api/sdk/v1/documents/${handbook.documentId}/share`, { targetGraphId: `user:${stranger.userId}` });
    const deleted = await api.as(stranger.apiKey).delete(`/api/sdk/v1/documents/${handbook.documentId}`);
    const ownSearch = await search(api, stranger, { query: 'bike frame warranty', threshold: 0 });
    const stillThere = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${handbook.documentId}/graphs`);
    // Assess
    expect(reads.map((read) => read.status)).toEqual([404, 404, 404, 404]);
    expect(reads[0]!.body.error).toMatchObject({ code: 'NOT_FOUND', details: { documentId: handbook.documentId } });
    expect([searched.status, listed.status, shared.status, deleted.status]).toEqual([404, 404, 404, 404]);
    expect(ownSearch.body.data.results).toEqual([]);
    expect(stillThere.body.data.graphs).toHaveLength(1);
  });
});
