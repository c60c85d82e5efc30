import { describe, expect, it, vi } from 'vitest';
import { calibrationOf, scoreOf, withOperatingPoint } from '../../functions/documents/calibration.js';
import { chunkPages, isHeading, pageSeparator } from '../../functions/documents/chunker.js';
import { ExtractionError, csvToText, jsonToText, markdownToText, parseCsv } from '../../functions/documents/extract-structured.js';
import { createGraphIndexCache, snapshotAfterChunks } from '../../functions/documents/graph-index-cache.js';
import { rankHybrid } from '../../functions/documents/hybrid-rank.js';
import { LexicalIndex, questionTermsOf, termsOf } from '../../functions/documents/lexical-index.js';
import { normalise } from '../../functions/documents/ports.js';
import { decodeVectors, encodeVectors } from '../../functions/documents/vector-codec.js';
import { VectorIndex } from '../../functions/documents/vector-index.js';

const sizes = { targetChars: 120, maxChars: 160, overlapChars: 60 };
const unit = (...values: number[]) => normalise(Float32Array.from(values));

describe('documents: chunking', () => {
  it('keeps short paragraphs whole and never crosses a page', () => {
    // Act
    const chunks = chunkPages(
      [
        { pageNumber: 1, text: 'Alpha one.\n\nAlpha two.' },
        { pageNumber: 2, text: 'Beta.' },
      ],
      sizes,
    );
    // Assess
    expect(chunks).toEqual([
      { position: 0, pageNumber: 1, charOffset: 0, content: 'Alpha one.\n\nAlpha two.', heading: null },
      { position: 1, pageNumber: 2, charOffset: 'Alpha one.\n\nAlpha two.'.length + pageSeparator.length, content: 'Beta.', heading: null },
    ]);
  });

  it('splits a long paragraph at sentence ends, repeating the last sentence as overlap', () => {
    // Prepare
    const sentences = [
      'The first sentence talks about rivers.',
      'The second one is about mountains and valleys.',
      'A third covers the weather in spring.',
      'The fourth is about the sea.',
      'The fifth closes it.',
    ];
    const text = sentences.join(' ');
    // Act
    const chunks = chunkPages([{ pageNumber: null, text }], sizes);
    // Assess
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.content.length).toBeLessThanOrEqual(sizes.maxChars);
      expect(text.slice(chunk.charOffset)).toMatch(new RegExp(`^${chunk.content.split(' ')[0]}`));
      expect(sentences.some((sentence) => chunk.content.startsWith(sentence))).toBe(true);
    }
    const lastOfFirst = sentences.find((sentence) => chunks[0]!.content.endsWith(sentence))!;
    expect(chunks[1]!.content.startsWith(lastOfFirst)).toBe(true);
  });

  it('keeps a sentence longer than a chunk whole', () => {
    // Prepare
    const long = `The committee, ${Array.from({ length: 8 }, (_, index) => `having weighed item ${index}`).join(', ')}, approved the budget.`;
    // Act
    const chunks = chunkPages([{ pageNumber: null, text: `A short start. ${long} A short end.` }], sizes);
    // Assess
    expect(long.length).toBeGreaterThan(sizes.maxChars);
    expect(chunks.filter((chunk) => chunk.content.includes(long))).toHaveLength(1);
  });

  it('cuts text with no sentence end past three chunks at word boundaries', () => {
    // Prepare
    const text = Array.from({ length: 120 }, (_, index) => `word${index}`).join(' ');
    // Act
    const chunks = chunkPages([{ pageNumber: 3, text }], sizes);
    // Assess
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.content.length <= 3 * sizes.maxChars && /^word\d+/.test(chunk.content) && /word\d+$/.test(chunk.content))).toBe(true);
    expect(
      chunks
        .map((chunk) => chunk.content)
        .join(' ')
        .split(' ')
        .filter((word, index, all) => all.indexOf(word) === index),
    ).toHaveLength(120);
  });

  it('gives each chunk its section heading and never makes a heading a chunk', () => {
    // Prepare
    const pages = [
      { pageNumber: 1, text: 'Refunds\n\nMoney goes back to the card within five days.\n\nDelivery' },
      { pageNumber: 2, text: 'Parcels leave the warehouse the same day.\n\nStep 2: Promote the replica\n\nRun the promote command.' },
    ];
    // Act
    const chunks = chunkPages(pages, sizes);
    // Assess
    expect(chunks.map(({ heading, content, pageNumber }) => ({ heading, content, pageNumber }))).toEqual([
      { heading: 'Refunds', content: 'Money goes back to the card within five days.', pageNumber: 1 },
      { heading: 'Delivery', content: 'Parcels leave the warehouse the same day.', pageNumber: 2 },
      { heading: 'Step 2: Promote the replica', content: 'Run the promote command.', pageNumber: 2 },
    ]);
  });

  it('tells headings from sentences, list items and "name: value" lines', () => {
    expect(['Annual leave', '3. Service levels', 'Which payment methods do you accept?'.slice(0, -1)].every(isHeading)).toBe(true);
    expect(['Pay within 14 days.', '- Bring your laptop', 'price: 290 euros', 'Rows\nover two lines', 'Note:'].some(isHeading)).toBe(false);
  });

  it('keeps a document of nothing but one short line as body text', () => {
    expect(chunkPages([{ pageNumber: null, text: 'Quarterly numbers' }], sizes).map((chunk) => chunk.content)).toEqual(['Quarterly numbers']);
  });

  it('makes no chunk of an empty page', () => {
    expect(chunkPages([{ pageNumber: 1, text: '  \n\n ' }], sizes)).toEqual([]);
  });
});

describe('documents: calibration and hybrid ranking', () => {
  const features = { similarity: 0.5, coverage: 0.5 };

  it('scores in [0, 1], rising with the cosine and with the words matched', () => {
    // Prepare
    const calibration = calibrationOf('universal-sentence-encoder-lite');
    // Act
    const bySimilarity = [0, 0.2, 0.4, 0.6, 0.8, 1].map((similarity) => scoreOf(calibration, { similarity, coverage: 0.5 }));
    const byWords = [0, 0.5, 1].map((coverage) => scoreOf(calibration, { similarity: 0.5, coverage }));
    // Assess
    for (const scores of [bySimilarity, byWords])
      expect(scores.every((score, index) => score > 0 && score < 1 && (index === 0 || score > scores[index - 1]!))).toBe(true);
  });

  it('places the operating point exactly at the default threshold', () => {
    // Prepare
    const calibration = { intercept: 0, similarity: 2, coverage: 1 };
    const cut = 2 * 0.5 + 0.5;
    // Act
    const moved = withOperatingPoint(calibration, cut);
    // Assess
    expect(scoreOf(moved, features)).toBeCloseTo(0.7, 10);
  });

  it('knows no calibration for an unknown model', () => {
    expect(() => calibrationOf('some-model')).toThrow(/no calibration/);
  });

  it('finds by words what embeddings miss, and scores each candidate by both', () => {
    // Prepare: the query vector points at chunk 0, the words at chunk 1.
    const vectors = new VectorIndex(2);
    vectors.put('doc_a', Float32Array.from([...unit(1, 0), ...unit(0, 1)]));
    const lexical = new LexicalIndex();
    lexical.put('doc_a', [
      { position: 0, content: 'Opening hours of the office.' },
      { position: 1, content: 'Refunds reach your card within five days.', heading: 'Refunds' },
    ]);
    const calibration = { intercept: -3, similarity: 2, coverage: 2 };
    // Act
    const hits = rankHybrid({ vectors, lexical }, { query: unit(1, 0.2), question: 'When is my refund paid?', calibration, limit: 5, threshold: 0 });
    // Assess
    expect(hits.map((hit) => hit.position).sort()).toEqual([0, 1]);
    const byWords = hits.find((hit) => hit.position === 1)!;
    expect(byWords.coverage).toBeGreaterThan(0);
    expect(byWords.similarity).toBeCloseTo(unit(1, 0.2)[1]!, 5);
    expect(hits.find((hit) => hit.position === 0)!.coverage).toBe(0);
  });

  it('scores a chunk from the chunk alone: the same in a graph of its own and beside documents sharing its words', () => {
    // Prepare
    const harbour = { position: 0, content: 'The harbour master opens the northern lock at dawn.' };
    const graphOf = (others: number) => {
      const vectors = new VectorIndex(2);
      const lexical = new LexicalIndex();
      vectors.put('doc_harbour', unit(1, 1));
      lexical.put('doc_harbour', [harbour]);
      for (let other = 0; other < others; other++) {
        vectors.put(`doc_${other}`, unit(1, other));
        lexical.put(`doc_${other}`, [{ position: 0, content: `Lock ${other} of the canal opens at noon; the lock keeper opens it.` }]);
      }
      return { vectors, lexical };
    };
    const input = {
      query: unit(1, 0.5),
      question: 'When does the lock open?',
      calibration: calibrationOf('universal-sentence-encoder-lite'),
      limit: 20,
      threshold: 0,
    };
    // Act
    const [alone, crowded] = [graphOf(0), graphOf(10)].map((graph) => rankHybrid(graph, input).find((hit) => hit.documentId === 'doc_harbour')!);
    // Assess
    expect(questionTermsOf('When does the lock open?')).toEqual(['lock', 'open']);
    expect(alone.coverage).toBe(1);
    expect(crowded.score).toBe(alone.score);
  });

  it('stems and drops stop words, and forgets a removed document', () => {
    // Prepare
    const lexical = new LexicalIndex();
    lexical.put('doc_a', [{ position: 0, content: 'The parcels were refunded.' }]);
    // Act
    const before = lexical.search('parcel refunds');
    lexical.remove('doc_a');
    // Assess
    expect(termsOf('The parcels were refunded')).toEqual(['parcel', 'refund']);
    expect(before).toEqual([expect.objectContaining({ documentId: 'doc_a', position: 0, coverage: 1 })]);
    expect(lexical.search('parcel refunds')).toEqual([]);
    expect(lexical.size).toBe(0);
  });
});

describe('documents: vectors', () => {
  it('round-trips vectors through the int8 encoding within 0.01 cosine', () => {
    // Prepare
    const vectors = Array.from({ length: 5 }, (_, row) => normalise(Float32Array.from({ length: 64 }, (_, index) => Math.sin(row * 7 + index))));
    // Act
    const decoded = decodeVectors(encodeVectors(vectors, 64), 64);
    // Assess
    expect(decoded).toHaveLength(5 * 64);
    vectors.forEach((vector, row) => {
      const cosine = vector.reduce((sum, value, index) => sum + value * decoded[row * 64 + index]!, 0);
      expect(cosine).toBeGreaterThan(0.99);
    });
  });

  it('answers the best rows above the threshold, best first, at most limit', () => {
    // Prepare
    const index = new VectorIndex(2);
    index.put('doc_a', Float32Array.from([...unit(1, 0), ...unit(0, 1), ...unit(1, 1)]));
    index.put('doc_b', Float32Array.from([...unit(1, 0.1), ...unit(-1, 0)]));
    // Act
    const top = index.search(unit(1, 0), 2, 0.5);
    const removed = (index.remove('doc_a'), index.search(unit(1, 0), 10, -1));
    // Assess
    expect(top.map(({ documentId, position }) => `${documentId}:${position}`)).toEqual(['doc_a:0', 'doc_b:0']);
    expect(top[0]!.similarity).toBeCloseTo(1);
    expect(removed.map((hit) => hit.documentId)).toEqual(['doc_b', 'doc_b']);
  });

  it('ranks equal scores by document and position, whatever order the documents were loaded in', () => {
    // Prepare
    const copy = Float32Array.from([...unit(1, 0), ...unit(1, 0)]);
    const forwards = new VectorIndex(2);
    const backwards = new VectorIndex(2);
    for (const id of ['doc_a', 'doc_b', 'doc_c']) forwards.put(id, copy);
    for (const id of ['doc_c', 'doc_b', 'doc_a']) backwards.put(id, copy);
    // Act
    const [first, second] = [forwards, backwards].map((index) =>
      index.search(unit(1, 0), 3, 0.5).map(({ documentId, position }) => `${documentId}:${position}`),
    );
    // Assess
    expect(first).toEqual(['doc_a:0', 'doc_a:1', 'doc_b:0']);
    expect(second).toEqual(first);
  });

  it.each([512, 100])('finds what a plain scan finds after documents are added, replaced and removed (%i dimensions)', (dims) => {
    // Prepare
    let seed = dims;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648 - 0.5;
    const vectorsOf = (count: number) => {
      const block = new Float32Array(count * dims);
      for (let row = 0; row < count; row++) block.set(normalise(Float32Array.from({ length: dims }, random)), row * dims);
      return block;
    };
    const index = new VectorIndex(dims);
    const kept = new Map<string, Float32Array>();
    for (let d = 0; d < 60; d++) {
      const id = `doc_${String(d).padStart(2, '0')}`;
      const block = vectorsOf(1 + (d % 7) * 9);
      index.put(id, block);
      kept.set(id, block);
    }
    for (let d = 0; d < 60; d += 4) {
      index.remove(`doc_${String(d).padStart(2, '0')}`);
      kept.delete(`doc_${String(d).padStart(2, '0')}`);
    }
    const replaced = vectorsOf(5);
    index.put('doc_01', replaced);
    kept.set('doc_01', replaced);
    const query = normalise(Float32Array.from({ length: dims }, random));
    const expected = [...kept]
      .flatMap(([documentId, block]) =>
        Array.from({ length: block.length / dims }, (_, position) => ({
          documentId,
          position,
          similarity: block.subarray(position * dims, (position + 1) * dims).reduce((sum, value, k) => sum + value * query[k]!, 0),
        })),
      )
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 10);
    // Act
    const top = index.search(query, 10, -1);
    // Assess
    expect(index.size).toBe([...kept.values()].reduce((sum, block) => sum + block.length / dims, 0));
    expect(top.map(({ documentId, position }) => `${documentId}:${position}`)).toEqual(expected.map(({ documentId, position }) => `${documentId}:${position}`));
    top.forEach((hit, rank) => {
      expect(hit.similarity).toBeCloseTo(expected[rank]!.similarity, 5);
    });
  });
});

describe('documents: warm graph indexes', () => {
  function givenSource() {
    const state = { version: 1, documents: ['doc_a'], reads: [] as string[] };
    const source = {
      version: async () => state.version,
      documentIds: async () => state.documents,
      vectors: async (documentId: string) => (state.reads.push(documentId), { model: 'm', dims: 2, vectors: unit(1, 0) }),
      chunks: async (documentId: string) => [
        { documentId, position: 0, chunkId: `chk_${documentId}_0`, content: `text of ${documentId}`, pageNumber: null, charOffset: 0 },
      ],
    };
    return { state, cache: createGraphIndexCache({ source, embedder: { modelId: 'm', dims: 2 }, maxVectors: 100 }) };
  }

  it('loads a graph once while its version stands, and only new documents after it moves', async () => {
    // Prepare
    const { state, cache } = givenSource();
    // Act
    await cache.indexFor('user:usr_a');
    await cache.indexFor('user:usr_a');
    state.version = 2;
    state.documents = ['doc_a', 'doc_b'];
    const index = await cache.indexFor('user:usr_a');
    // Assess
    expect(state.reads).toEqual(['doc_a', 'doc_b']);
    expect(index.vectors.size).toBe(2);
    expect(index.lexical.search('text doc_b')).toHaveLength(2);
  });

  it('answers TIMEOUT past its wait while the load goes on, and the next call gets what that load left', async () => {
    // Prepare: a load held until the test releases it, and a cache that never waits for one.
    const { state } = givenSource();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    const source = {
      version: async () => state.version,
      documentIds: async () => (loads++, await held, state.documents),
      vectors: async () => ({ model: 'm', dims: 2, vectors: unit(1, 0) }),
      chunks: async () => [],
    };
    const cache = createGraphIndexCache({ source, embedder: { modelId: 'm', dims: 2 }, maxVectors: 100, loadWaitMs: 0 });
    // Act
    const first = await cache.indexFor('user:usr_a').catch((error: unknown) => error);
    const joined = await cache.indexFor('user:usr_a').catch((error: unknown) => error);
    release();
    let loaded: Awaited<ReturnType<typeof cache.indexFor>> | undefined;
    // The released load ends after a few turns of the event loop; every call meanwhile joins it.
    for (let turn = 0; turn < 1000 && !loaded; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      loaded = await cache.indexFor('user:usr_a').catch(() => undefined);
    }
    // Assess
    expect([first, joined]).toEqual([expect.objectContaining({ code: 'TIMEOUT', status: 504 }), expect.objectContaining({ code: 'TIMEOUT' })]);
    expect(loaded?.vectors.size).toBe(1);
    expect(loads).toBe(1);
  });

  it('drops a removed document when the version moves', async () => {
    // Prepare
    const { state, cache } = givenSource();
    await cache.indexFor('user:usr_a');
    // Act
    state.version = 2;
    state.documents = [];
    const index = await cache.indexFor('user:usr_a');
    // Assess
    expect(index.vectors.size).toBe(0);
    expect(index.lexical.size).toBe(0);
  });

  function givenLargeGraph() {
    const state = { version: 1, documents: ['doc_big', 'doc_gone'], chunkReads: [] as string[] };
    const stored = new Map<string, Uint8Array>();
    const chunk = (documentId: string, position: number, content: string) => ({
      documentId,
      position,
      chunkId: `chk_${documentId}_${position}`,
      content,
      pageNumber: null,
      charOffset: 0,
    });
    const source = {
      version: async () => state.version,
      documentIds: async () => state.documents,
      vectors: async () => ({ model: 'm', dims: 2, vectors: unit(1, 0) }),
      chunks: async (documentId: string) => {
        state.chunkReads.push(documentId);
        if (documentId !== 'doc_big') return [chunk(documentId, 0, `A note about refunds in ${documentId}.`)];
        return Array.from({ length: snapshotAfterChunks }, (_, position) =>
          chunk(documentId, position, `Line ${position} of the manual on refunds and returns, part ${position % 97}.`),
        );
      },
    };
    const snapshots = {
      read: async (graphId: string) => stored.get(graphId),
      write: async (graphId: string, bytes: Uint8Array) => void stored.set(graphId, bytes),
    };
    const newCache = () => createGraphIndexCache({ source, embedder: { modelId: 'm', dims: 2 }, maxVectors: 100_000, snapshots });
    return { state, stored, newCache };
  }

  it('leaves a BM25 snapshot after indexing a large graph; a cold load reads it and indexes only the documents added since', async () => {
    // Prepare
    const { state, stored, newCache } = givenLargeGraph();
    const warmCache = newCache();
    await warmCache.indexFor('group:grp_a');
    await vi.waitFor(() => expect(stored.has('group:grp_a')).toBe(true));
    state.version = 2;
    state.documents = ['doc_big', 'doc_new'];
    const warm = await warmCache.indexFor('group:grp_a');
    state.chunkReads = [];
    // Act
    const cold = await newCache().indexFor('group:grp_a');
    // Assess
    expect(state.chunkReads).toEqual(['doc_new']);
    expect(cold.lexical.documentIds().sort()).toEqual(['doc_big', 'doc_new']);
    expect(cold.vectors.documentIds().sort()).toEqual(['doc_big', 'doc_new']);
    for (const question of ['refunds part 42', 'a note about returns', 'line 9000 of the manual'])
      expect(cold.lexical.search(question)).toEqual(warm.lexical.search(question));
  });

  it('rebuilds the BM25 index from the chunks when the snapshot cannot be read', async () => {
    // Prepare
    const { state, stored, newCache } = givenLargeGraph();
    stored.set('group:grp_a', new TextEncoder().encode('{"format": 1, "engine": '));
    // Act
    const index = await newCache().indexFor('group:grp_a');
    // Assess
    expect(state.chunkReads.sort()).toEqual(['doc_big', 'doc_gone']);
    expect(index.lexical.size).toBe(snapshotAfterChunks + 1);
  });
});

describe('documents: text formats', () => {
  it('strips Markdown markup and keeps the words', () => {
    expect(markdownToText('## Title ##\n\nSome **bold** and _light_ text with `code` and [a link](http://x.test).').trim()).toBe(
      'Title\n\nSome bold and light text with code and a link.',
    );
  });

  it('parses quoted CSV fields and writes rows as named values', () => {
    expect(parseCsv('a,b\n"x, y","say ""hi"""\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
    ]);
    expect(csvToText('name,age\nAna,30\nBo,41')).toBe('name: Ana\nage: 30\n\nname: Bo\nage: 41');
    expect(() => csvToText('a\n"open')).toThrow(ExtractionError);
  });

  it('flattens JSON into paths and refuses what does not parse', () => {
    expect(jsonToText('{"a":{"b":[1,2]},"c":"d"}')).toBe('a.b[0]: 1\na.b[1]: 2\n\nc: d');
    expect(() => jsonToText('{oops')).toThrow(ExtractionError);
  });
});
