import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../support/document-files.js';
import { encodedGraph, mime, search, upload } from '../support/documents.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;

const lighthouse = 'The lighthouse on Cape Verde island is open to visitors on Saturdays from ten until four.';
const lighthouseQuestion = { query: 'When can tourists visit the lighthouse?' };

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, member, outsider] = await Promise.all([api.givenUser(), api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

async function givenGroup(name = 'Team'): Promise<string> {
  const group = (await api.as(owner.apiKey).post('/api/sdk/v1/graphs', { name })).body.data.graphId as string;
  await api.as(owner.apiKey).post(`/api/sdk/v1/graphs/${encodedGraph(group)}/members`, { userId: member.userId });
  return group;
}

const graphsOf = async (user: TestUser, documentId: string) =>
  ((await api.as(user.apiKey).get(`/api/sdk/v1/documents/${documentId}/graphs`)).body.data?.graphs ?? []).map((graph: { graphId: string }) => graph.graphId);

describe('graphs: group graphs and their members', () => {
  it('creates a group graph owned by its creator and lists it after the personal graph', async () => {
    // Act
    const created = await api.as(owner.apiKey).post('/api/sdk/v1/graphs', { name: 'Research' });
    const listed = await api.as(owner.apiKey).get('/api/sdk/v1/graphs');
    const detail = await api.as(owner.apiKey).get(`/api/sdk/v1/graphs/${encodedGraph(created.body.data.graphId)}`);
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      graphId: expect.stringMatching(/^group:grp_/),
      graphType: 'group',
      graphName: 'Research',
      ownerId: owner.userId,
      role: 'owner',
      createdAt: expect.any(Number),
    });
    expect(listed.body.data.graphs[0]).toMatchObject({ graphId: `user:${owner.userId}`, graphType: 'personal', role: 'owner' });
    expect(listed.body.data.graphs.map((graph: { graphId: string }) => graph.graphId)).toContain(created.body.data.graphId);
    expect(detail.body.data.members).toEqual([{ userId: owner.userId, role: 'owner', addedAt: expect.any(Number) }]);
  });

  it('lets only the owner add members, once each, and only existing users', async () => {
    // Prepare
    const group = await givenGroup();
    const path = `/api/sdk/v1/graphs/${encodedGraph(group)}/members`;
    // Act
    const byMember = await api.as(member.apiKey).post(path, { userId: outsider.userId });
    const byOutsider = await api.as(outsider.apiKey).post(path, { userId: outsider.userId });
    const twice = await api.as(owner.apiKey).post(path, { userId: member.userId });
    const unknown = await api.as(owner.apiKey).post(path, { userId: 'usr_doesnotexist' });
    const members = (await api.as(owner.apiKey).get(`/api/sdk/v1/graphs/${encodedGraph(group)}`)).body.data.members;
    // Assess
    expect([byMember.status, byOutsider.status, twice.status, unknown.status]).toEqual([403, 404, 409, 404]);
    expect(members.map((entry: { userId: string }) => entry.userId).sort()).toEqual([owner.userId, member.userId].sort());
  });

  it('ends a member’s access when they leave, and keeps the owner in', async () => {
    // Prepare
    const group = await givenGroup();
    const uploaded = await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text }, { graphId: group });
    // Act
    const before = await api.as(member.apiKey).get(`/api/sdk/v1/documents/${uploaded.body.data.documentId}`);
    const left = await api.as(member.apiKey).delete(`/api/sdk/v1/graphs/${encodedGraph(group)}/members/${member.userId}`);
    const after = await api.as(member.apiKey).get(`/api/sdk/v1/documents/${uploaded.body.data.documentId}`);
    const searched = await search(api, member, { ...lighthouseQuestion, graphId: group });
    const ownerLeaves = await api.as(owner.apiKey).delete(`/api/sdk/v1/graphs/${encodedGraph(group)}/members/${owner.userId}`);
    // Assess
    expect(before.status).toBe(200);
    expect(left.body).toEqual({ success: true, message: expect.stringContaining(member.userId) });
    expect([after.status, searched.status, ownerLeaves.status]).toEqual([404, 404, 409]);
  });

  it('refuses members on a personal graph', async () => {
    // Act
    const refused = await api.as(owner.apiKey).post(`/api/sdk/v1/graphs/${encodedGraph(`user:${owner.userId}`)}/members`, { userId: member.userId });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'graphId', value: `user:${owner.userId}` } });
  });
});

describe('documents: sharing between graphs', () => {
  it("gives a group's members access to a shared document and a non-member none", async () => {
    // Prepare
    const group = await givenGroup();
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text })).body.data;
    const memberBefore = await api.as(member.apiKey).get(`/api/sdk/v1/documents/${documentId}`);
    // Act
    const shared = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: group, shareReason: 'for the visit' });
    const memberRead = await api.as(member.apiKey).get(`/api/sdk/v1/documents/${documentId}`);
    const memberSearch = await search(api, member, { ...lighthouseQuestion, graphId: group });
    const memberList = await api.as(member.apiKey).get(`/api/sdk/v1/documents?graphId=${encodedGraph(group)}`);
    const outsiderRead = await api.as(outsider.apiKey).get(`/api/sdk/v1/documents/${documentId}`);
    const outsiderSearch = await search(api, outsider, { ...lighthouseQuestion, graphId: group });
    const graphs = await api.as(owner.apiKey).get(`/api/sdk/v1/documents/${documentId}/graphs`);
    // Assess
    expect(memberBefore.status).toBe(404);
    expect(shared.status).toBe(200);
    expect(shared.body.data).toEqual({
      documentId,
      graphIds: [`user:${owner.userId}`, group],
      shareEvent: { sharedAt: expect.any(Number), sharedBy: owner.userId, reason: 'for the visit' },
    });
    expect(memberRead.status).toBe(200);
    expect(memberSearch.body.data.results[0]).toMatchObject({ documentId, documentName: 'lighthouse.txt', pageNumber: null });
    expect(memberList.body.data.documents.map((document: { documentId: string }) => document.documentId)).toEqual([documentId]);
    expect([outsiderRead.status, outsiderSearch.status]).toEqual([404, 404]);
    expect(graphs.body.data.graphs[1]).toEqual({
      graphId: group,
      graphType: 'group',
      graphName: 'Team',
      isPrimary: false,
      sharedAt: shared.body.data.shareEvent.sharedAt,
      sharedByUserId: owner.userId,
      shareReason: 'for the visit',
    });
  });

  it('lets members upload into a group graph and refuses a non-member, creating nothing', async () => {
    // Prepare
    const group = await givenGroup();
    // Act
    const byMember = await upload(api, member, { bytes: lighthouse, filename: 'by-member.txt', mimeType: mime.text }, { graphId: group });
    const byOutsider = await upload(api, outsider, { bytes: lighthouse, filename: 'by-outsider.txt', mimeType: mime.text }, { graphId: group });
    const listed = await api.as(owner.apiKey).get(`/api/sdk/v1/documents?graphId=${encodedGraph(group)}`);
    // Assess
    expect(byMember.status).toBe(201);
    expect(byMember.body.data.graphIds).toEqual([group]);
    expect(byOutsider.status).toBe(404);
    expect(byOutsider.body.error).toMatchObject({ code: 'NOT_FOUND', details: { graphId: group } });
    expect(listed.body.data.documents.map((document: { filename: string }) => document.filename)).toEqual(['by-member.txt']);
  });

  it('refuses sharing into a graph the caller is not in, and deleting by a reader who is not the owner', async () => {
    // Prepare
    const group = await givenGroup();
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text }, { graphId: group })).body.data;
    const othersGroup = (await api.as(outsider.apiKey).post('/api/sdk/v1/graphs', { name: 'Elsewhere' })).body.data.graphId;
    // Act
    const intoForeign = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: othersGroup });
    const intoForeignPersonal = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: `user:${member.userId}` });
    const deleteByMember = await api.as(member.apiKey).delete(`/api/sdk/v1/documents/${documentId}`);
    // Assess
    expect(intoForeign.status).toBe(404);
    expect(intoForeign.body.error.details).toEqual({ targetGraphId: othersGroup });
    expect(intoForeignPersonal.status).toBe(404);
    expect(deleteByMember.status).toBe(403);
    expect(await graphsOf(owner, documentId)).toEqual([group]);
  });

  it('takes a document out of a group graph, ending members’ access through it', async () => {
    // Prepare
    const group = await givenGroup();
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text })).body.data;
    await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: group });
    // Act
    const unshared = await api.as(owner.apiKey).delete(`/api/sdk/v1/documents/${documentId}/share/${encodedGraph(group)}`);
    const memberRead = await api.as(member.apiKey).get(`/api/sdk/v1/documents/${documentId}`);
    const memberSearch = await search(api, member, { ...lighthouseQuestion, graphId: group });
    const again = await api.as(owner.apiKey).delete(`/api/sdk/v1/documents/${documentId}/share/${encodedGraph(group)}`);
    // Assess
    expect(unshared.body.data).toEqual({ documentId, graphIds: [`user:${owner.userId}`] });
    expect(memberRead.status).toBe(404);
    expect(memberSearch.body.data.results).toEqual([]);
    expect(again.status).toBe(404);
  });
});

describe('documents: bad input gets VALIDATION_ERROR and changes nothing', () => {
  const file = { file: toBase64(lighthouse), filename: 'ok.txt', mimeType: mime.text };

  it.each([
    ['upload without a file', '/api/sdk/v1/documents/upload', { filename: 'a.txt', mimeType: mime.text }, 'file', null],
    ['upload of something not base64', '/api/sdk/v1/documents/upload', { ...file, file: 'not base64!' }, 'file', 'not base64!'],
    ['upload of an unsupported type', '/api/sdk/v1/documents/upload', { ...file, mimeType: 'image/png' }, 'mimeType', 'image/png'],
    ['upload with a path as file name', '/api/sdk/v1/documents/upload', { ...file, filename: '../etc/passwd' }, 'filename', '../etc/passwd'],
    ['upload into a malformed graph', '/api/sdk/v1/documents/upload', { ...file, graphId: 'team' }, 'graphId', 'team'],
    ['upload with an unknown field', '/api/sdk/v1/documents/upload', { ...file, colour: 'red' }, 'colour', 'red'],
    [
      'upload URL over the size limit',
      '/api/sdk/v1/documents/upload-url',
      { filename: 'big.pdf', mimeType: mime.pdf, size: 21 * 1024 * 1024 },
      'size',
      21 * 1024 * 1024,
    ],
    [
      'upload URL of an unsupported type',
      '/api/sdk/v1/documents/upload-url',
      { filename: 'a.exe', mimeType: 'application/x-msdownload', size: 10 },
      'mimeType',
      'application/x-msdownload',
    ],
    ['search without a query', '/api/sdk/v1/documents/search', { query: '  ' }, 'query', '  '],
    ['search with limit 0', '/api/sdk/v1/documents/search', { query: 'x', limit: 0 }, 'limit', 0],
    ['search with a threshold above 1', '/api/sdk/v1/documents/search', { query: 'x', threshold: 1.5 }, 'threshold', 1.5],
    ['create a graph without a name', '/api/sdk/v1/graphs', { name: '' }, 'name', ''],
  ])('POST: %s', async (_, path, body, field, value) => {
    // Prepare
    const before = (await api.as(outsider.apiKey).get('/api/sdk/v1/documents')).body.data.total;
    const graphsBefore = (await api.as(outsider.apiKey).get('/api/sdk/v1/graphs')).body.data.count;
    // Act
    const response = await api.as(outsider.apiKey).post(path, body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    expect((await api.as(outsider.apiKey).get('/api/sdk/v1/documents')).body.data.total).toBe(before);
    expect((await api.as(outsider.apiKey).get('/api/sdk/v1/graphs')).body.data.count).toBe(graphsBefore);
  });

  it.each([
    ['list with limit 1000', 'GET', '/api/sdk/v1/documents?limit=1000', 'limit', '1000'],
    ['list of a malformed graph', 'GET', '/api/sdk/v1/documents?graphId=team', 'graphId', 'team'],
    ['get a malformed graph', 'GET', '/api/sdk/v1/graphs/team', 'graphId', 'team'],
    [
      'remove a member by an id past 200 characters',
      'DELETE',
      `/api/sdk/v1/graphs/${encodedGraph('group:grp_x')}/members/${'u'.repeat(201)}`,
      'userId',
      'u'.repeat(201),
    ],
  ])('%s', async (_, method, path, field, value) => {
    // Act
    const response = await api.request(method, path, { headers: { 'x-api-key': outsider.apiKey }, ...(method === 'POST' && { body: {} }) });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
  });

  it('refuses an inline upload past the 6 MB request body, pointing at the size, and creates nothing', async () => {
    // Prepare
    const before = (await api.as(outsider.apiKey).get('/api/sdk/v1/documents')).body.data.total;
    const file = Buffer.alloc(5 * 1024 * 1024, 'a').toString('base64');
    // Act
    const response = await api.as(outsider.apiKey).post('/api/sdk/v1/documents/upload', { file, filename: 'big.txt', mimeType: mime.text });
    // Assess
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect((await api.as(outsider.apiKey).get('/api/sdk/v1/documents')).body.data.total).toBe(before);
  });

  it('refuses a malformed share or unshare, and an unknown member, and keeps the graphs as they were', async () => {
    // Prepare
    const group = await givenGroup();
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text })).body.data;
    // Act
    const noTarget = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { shareReason: 'why not' });
    const badTarget = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: 'everyone' });
    const badUnshare = await api.as(owner.apiKey).delete(`/api/sdk/v1/documents/${documentId}/share/everyone`);
    const badMember = await api.as(owner.apiKey).post(`/api/sdk/v1/graphs/${encodedGraph(group)}/members`, { userId: 'bob' });
    const members = (await api.as(owner.apiKey).get(`/api/sdk/v1/graphs/${encodedGraph(group)}`)).body.data.members;
    // Assess
    expect(noTarget.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'targetGraphId', value: null } });
    expect(badTarget.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'targetGraphId', value: 'everyone' } });
    expect(badUnshare.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'graphId', value: 'everyone' } });
    expect(badMember.body.error).toMatchObject({ code: 'NOT_FOUND', details: { userId: 'bob' } });
    expect(await graphsOf(owner, documentId)).toEqual([`user:${owner.userId}`]);
    expect(members).toHaveLength(2);
  });
});

describe('documents: ids that name nothing', () => {
  const unknownDocumentId = 'not-a-document';

  it.each([
    ['get', 'GET', `/api/sdk/v1/documents/${unknownDocumentId}`],
    ['status', 'GET', `/api/sdk/v1/documents/${unknownDocumentId}/status`],
    ['chunks', 'GET', `/api/sdk/v1/documents/${unknownDocumentId}/chunks`],
    ['graphs of a document', 'GET', `/api/sdk/v1/documents/${unknownDocumentId}/graphs`],
    ['complete an upload', 'POST', `/api/sdk/v1/documents/${unknownDocumentId}/complete`],
    ['delete', 'DELETE', `/api/sdk/v1/documents/${unknownDocumentId}`],
    ['share', 'POST', `/api/sdk/v1/documents/${unknownDocumentId}/share`],
  ])('%s of a document id that names nothing, whatever its shape: NOT_FOUND with the id', async (_, method, path) => {
    // Act
    const response = await api.request(method, path, {
      headers: { 'x-api-key': outsider.apiKey },
      ...(method === 'POST' && { body: { targetGraphId: `user:${outsider.userId}` } }),
    });
    // Assess
    expect(response.status).toBe(404);
    expect(response.body.error).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: { documentId: unknownDocumentId } });
  });

  it('makes a group named for the first time by a share its sharer\u2019s, and keeps it closed to everyone else', async () => {
    // Prepare
    const groupId = `group:team-${Date.now()}`;
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text })).body.data;
    const outsiders = (await upload(api, outsider, { bytes: lighthouse, filename: 'mine.txt', mimeType: mime.text })).body.data.documentId;
    // Act
    const shared = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: groupId });
    const intruded = await api.as(outsider.apiKey).post(`/api/sdk/v1/documents/${outsiders}/share`, { targetGraphId: groupId });
    const snooped = await search(api, outsider, { query: 'lighthouse', graphId: groupId });
    const found = await search(api, owner, { query: 'Where does the lighthouse stand?', graphId: groupId, threshold: 0 });
    const group = await api.as(owner.apiKey).get(`/api/sdk/v1/graphs/${encodedGraph(groupId)}`);
    // Assess
    expect(shared.status).toBe(200);
    expect(shared.body.data.graphIds).toEqual([`user:${owner.userId}`, groupId]);
    expect(group.body.data).toMatchObject({ graphId: groupId, graphType: 'group', ownerId: owner.userId, role: 'owner' });
    expect(found.body.data.results.map((result: { documentId: string }) => result.documentId)).toContain(documentId);
    expect(intruded.status).toBe(404);
    expect(intruded.body.error).toMatchObject({ code: 'NOT_FOUND', details: { targetGraphId: groupId } });
    expect(snooped.status).toBe(404);
    expect(await graphsOf(outsider, outsiders)).toEqual([`user:${outsider.userId}`]);
  });

  it('answers NOT_FOUND for another user\u2019s personal graph, and shares nothing', async () => {
    // Prepare
    const { documentId } = (await upload(api, owner, { bytes: lighthouse, filename: 'lighthouse.txt', mimeType: mime.text })).body.data;
    // Act
    const shared = await api.as(owner.apiKey).post(`/api/sdk/v1/documents/${documentId}/share`, { targetGraphId: `user:${outsider.userId}` });
    const searched = await search(api, owner, { query: 'lighthouse', graphId: `user:${outsider.userId}` });
    // Assess
    expect(shared.body.error).toMatchObject({ code: 'NOT_FOUND', details: { targetGraphId: `user:${outsider.userId}` } });
    expect(searched.status).toBe(404);
    expect(await graphsOf(owner, documentId)).toEqual([`user:${owner.userId}`]);
  });
});
