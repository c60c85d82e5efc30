// A search score means the same whatever else is in the graph: the same document and question score alike in a graph
// of their own and beside other documents (real ones of the workplace evaluation set: Markdown, PDF, DOCX, HTML, CSV
// and text), and the README quickstart's answer clears the default threshold in both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerableQuestion, workplaceDocuments, workplaceQuestions } from '../../bench/search-eval/workplace-set.js';
import { search, upload } from '../support/documents.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { renderDocument } from '../support/search-eval.js';

let api: TestApi;
let owner: TestUser;

const harbour = {
  bytes: 'The harbour master opens the northern lock at dawn.\nFishing boats leave before the ferries.\n',
  filename: 'harbour.txt',
  mimeType: 'text/plain',
};
const [leavePolicy, ...others] = workplaceDocuments;
const leaveQuestion = workplaceQuestions.find((question) => question.documentId === leavePolicy!.id) as AnswerableQuestion;

async function newGraph(name: string): Promise<string> {
  return (await api.as(owner.apiKey).post('/api/sdk/v1/graphs', { name })).body.data.graphId;
}

async function uploadInto(graphId: string, file: { bytes: Uint8Array | string; filename: string; mimeType: string }) {
  const uploaded = await upload(api, owner, file, { graphId });
  expect(uploaded.body.data?.status, JSON.stringify(uploaded.body)).toBe('completed');
}

const asFile = async (document: (typeof workplaceDocuments)[number]) => ({
  bytes: await renderDocument(document),
  filename: document.filename,
  mimeType: document.mimeType,
});

/** The score of the best result holding `phrase`, searched at threshold 0 so that every score shows. */
async function scoreOf(graphId: string, query: string, phrase: string): Promise<number> {
  const response = await search(api, owner, { query, graphId, threshold: 0, limit: 10 });
  const hit = (response.body.data.results as Array<{ content: string; score: number }>).find((result) => result.content.includes(phrase));
  if (!hit) throw new Error(`no result holds "${phrase}": ${JSON.stringify(response.body)}`);
  return hit.score;
}

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
}, 120_000);
afterAll(() => api.stop());

describe('documents: search scores do not depend on the rest of the graph', () => {
  it('scores the same document and question within 0.05 alone and beside ten other documents', async () => {
    // Prepare: each document alone in a graph, and both together with ten other documents in a third
    const [harbourAlone, leaveAlone, crowded] = await Promise.all([newGraph('Harbour alone'), newGraph('Leave policy alone'), newGraph('Crowded')]);
    expect(others.length).toBeGreaterThanOrEqual(10);
    await uploadInto(harbourAlone, harbour);
    await uploadInto(leaveAlone, await asFile(leavePolicy!));
    await uploadInto(crowded, harbour);
    await uploadInto(crowded, await asFile(leavePolicy!));
    for (const document of others.slice(0, 10)) await uploadInto(crowded, await asFile(document));
    // Act
    const harbourScores = [
      await scoreOf(harbourAlone, 'when does the lock open', 'northern lock'),
      await scoreOf(crowded, 'when does the lock open', 'northern lock'),
    ];
    const leaveScores = [
      await scoreOf(leaveAlone, leaveQuestion.question, leaveQuestion.answer),
      await scoreOf(crowded, leaveQuestion.question, leaveQuestion.answer),
    ];
    // Assess
    expect(Math.abs(harbourScores[0]! - harbourScores[1]!)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(leaveScores[0]! - leaveScores[1]!)).toBeLessThanOrEqual(0.05);
  }, 300_000);

  it("finds the quickstart's answer at the default threshold, alone and beside other documents", async () => {
    // Prepare
    const [alone, crowded] = await Promise.all([newGraph('Quickstart alone'), newGraph('Quickstart crowded')]);
    await uploadInto(alone, harbour);
    await uploadInto(crowded, harbour);
    for (const document of others.slice(0, 10)) await uploadInto(crowded, await asFile(document));
    // Act
    const found = await Promise.all([alone, crowded].map((graphId) => search(api, owner, { query: 'when does the lock open', graphId })));
    // Assess
    // Beside the office guide ("the locked storage room ... your badge opens it") the harbour need not come first.
    for (const response of found) {
      expect(response.status).toBe(200);
      const answer = (response.body.data.results as Array<{ documentName: string; content: string; score: number }>).find(
        (result) => result.documentName === 'harbour.txt',
      );
      expect(answer, JSON.stringify(response.body)).toMatchObject({ content: expect.stringContaining('northern lock') });
      expect(answer!.score).toBeGreaterThanOrEqual(0.7);
    }
  }, 300_000);
});
