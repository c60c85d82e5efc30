// The lexical index of a graph too large to load into one process, kept in DynamoDB beside its chunks: one item per
// (graph and term, document) listing the document's chunks that hold the term, with the counts BM25 needs. A search
// reads only the partitions of its question's terms.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/dynamo.js';
import { batchWrite } from './batch.js';
import { type LexicalChunk, type Posting, chunkTermsOf, commonFrom } from './lexical-index.js';

interface TermItem {
  graphTerm: string;
  documentId: string;
  positions: number[];
  counts: number[];
  lengths: number[];
}

const termsTable = () => tableName('graphTerms');
const partitionOf = (graphId: string, term: string) => `${graphId} ${term}`;

/** One item per term of the document, each listing the chunks that hold it. */
function itemsOf(graphId: string, documentId: string, chunks: LexicalChunk[]): TermItem[] {
  const items = new Map<string, TermItem>();
  for (const chunk of chunks) {
    const { counts, length } = chunkTermsOf(chunk);
    for (const [term, count] of counts) {
      const item = items.get(term) ?? { graphTerm: partitionOf(graphId, term), documentId, positions: [], counts: [], lengths: [] };
      item.positions.push(chunk.position), item.counts.push(count), item.lengths.push(length);
      items.set(term, item);
    }
  }
  return [...items.values()];
}

export function createTermStore() {
  /** Every chunk of the graph holding `term`, or only how many were read once past the share that makes it common. */
  async function postingsOf(graphId: string, term: string, graphChunks: number): Promise<Posting[] | { common: number }> {
    const postings: Posting[] = [];
    const limit = commonFrom(graphChunks);
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: termsTable(),
          KeyConditionExpression: 'graphTerm = :term',
          ExpressionAttributeValues: { ':term': partitionOf(graphId, term) },
          ExclusiveStartKey,
        }),
      );
      for (const item of (page.Items ?? []) as TermItem[]) {
        item.positions.forEach((position, at) => {
          postings.push({ documentId: item.documentId, position, count: item.counts[at]!, length: item.lengths[at]! });
        });
      }
      if (postings.length > limit) return { common: postings.length };
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return postings;
  }

  return {
    /** Writes the document's chunks into the graph's index; writing them again changes nothing. */
    put: (graphId: string, documentId: string, chunks: LexicalChunk[]) =>
      batchWrite(
        termsTable(),
        itemsOf(graphId, documentId, chunks).map((Item) => ({ PutRequest: { Item: { ...Item } } })),
      ),

    remove: (graphId: string, documentId: string, chunks: LexicalChunk[]) =>
      batchWrite(
        termsTable(),
        itemsOf(graphId, documentId, chunks).map(({ graphTerm }) => ({ DeleteRequest: { Key: { graphTerm, documentId } } })),
      ),

    /** The postings of each term, read in parallel. */
    async postings(graphId: string, terms: string[], graphChunks: number): Promise<Map<string, Posting[] | { common: number }>> {
      const read = await Promise.all(terms.map(async (term) => [term, await postingsOf(graphId, term, graphChunks)] as const));
      return new Map(read);
    },
  };
}

export type TermStore = ReturnType<typeof createTermStore>;
