// Documents: upload with progress and processing status, semantic search with scores and highlighted passages,
// group graphs; each document has its own page (#/documents/<id>) with its chunks, its graphs, sharing and unsharing.
import { useState } from 'preact/hooks';
import { api, unwrap, uploadClient } from '../api';
import { Busy, Field, Loaded, type Rec, Table, text, usePolling, useAction, useLoad } from '../ui';
import { Time } from '../time';

const mimeByExtension: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  htm: 'text/html',
  md: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
};

const base64Of = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

function ProcessingStatus({ documentId, onDone }: { documentId: string; onDone(): void }) {
  const [status, setStatus] = useState<Rec>();
  usePolling(
    async () => {
      const found: Rec = await unwrap(api().GET('/api/sdk/v1/documents/{documentId}/status', { params: { path: { documentId } } }));
      setStatus(found);
      const done = found.status !== 'processing' && found.status !== 'uploading';
      if (done) onDone();
      return done;
    },
    1000,
    [documentId],
  );
  if (!status || status.status === 'processing') return <Busy label="Processing: extracting, chunking and embedding" />;
  return (
    <p role="status">
      Document {documentId}: {status.status}, {status.chunkCount} chunks. <a href={`#/documents/${encodeURIComponent(documentId)}`}>Open it</a>
    </p>
  );
}

function Upload({ graphId, onUploaded }: { graphId: string; onUploaded(): void }) {
  const [file, setFile] = useState<File>();
  const [title, setTitle] = useState('');
  const [tags, setTags] = useState('');
  const [percent, setPercent] = useState<number>();
  const [uploaded, setUploaded] = useState<string>();
  const { run, status } = useAction();
  const upload = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setUploaded(undefined);
    const answer: Rec | undefined = await run('Uploading', async () => {
      const body = {
        file: await base64Of(file),
        filename: file.name,
        mimeType:
          file.type && Object.values(mimeByExtension).includes(file.type)
            ? file.type
            : (mimeByExtension[file.name.split('.').pop()!.toLowerCase()] ?? file.type),
        ...(title && { title }),
        productTags: tags
          .split(',')
          .map((tag) => tag.trim())
          .filter(Boolean),
        ...(graphId && { graphId }),
      };
      setPercent(0);
      try {
        return await unwrap(uploadClient(setPercent).POST('/api/sdk/v1/documents/upload', { body: body as never }));
      } finally {
        setPercent(undefined);
      }
    });
    if (answer) setUploaded(answer.documentId);
  };
  return (
    <form class="card" onSubmit={upload} aria-label="Upload a document">
      <h2>Upload</h2>
      <div class="row">
        <Field label="File (PDF, DOCX, HTML, Markdown, text, CSV, JSON)">
          <input
            type="file"
            name="file"
            required
            accept={Object.keys(mimeByExtension)
              .map((ext) => `.${ext}`)
              .join(',')}
            onChange={(event) => setFile(event.currentTarget.files?.[0])}
          />
        </Field>
        <Field label="Title">
          <input value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
        </Field>
        <Field label="Product tags (comma separated)">
          <input value={tags} onInput={(event) => setTags(event.currentTarget.value)} />
        </Field>
      </div>
      <button type="submit" disabled={!file}>
        Upload
      </button>
      {percent !== undefined && (
        <p role="status">
          <progress max={100} value={percent} aria-label="Upload progress" /> {percent}% sent
        </p>
      )}
      {status}
      {uploaded && <ProcessingStatus documentId={uploaded} onDone={onUploaded} />}
    </form>
  );
}

/** The passage with the query's words (four letters or more: not "the", "how") marked. */
function Highlighted({ content, query }: { content: string; query: string }) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [])].map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (words.length === 0) return <>{content}</>;
  const pattern = new RegExp(`(${words.join('|')})`, 'giu');
  return <>{content.split(pattern).map((part, index) => (index % 2 === 1 ? <mark>{part}</mark> : part))}</>;
}

function Search({ graphId }: { graphId: string }) {
  const [query, setQuery] = useState('');
  const [threshold, setThreshold] = useState('0.7');
  const [results, setResults] = useState<{ query: string; items: Rec[] }>();
  const { run, status } = useAction();
  const search = async (event: Event) => {
    event.preventDefault();
    const answer: Rec | undefined = await run('Searching', () =>
      unwrap(api().POST('/api/sdk/v1/documents/search', { body: { query, threshold: Number(threshold), limit: 10, ...(graphId && { graphId }) } as never })),
    );
    if (answer) setResults({ query, items: answer.results });
  };
  return (
    <search>
      <form class="card" onSubmit={search} aria-label="Search documents">
        <h2>Search</h2>
        <div class="row">
          <Field label="Question or words">
            <input type="search" name="query" required value={query} onInput={(event) => setQuery(event.currentTarget.value)} />
          </Field>
          <Field label="Minimum score">
            <input type="number" min="0" max="1" step="0.05" value={threshold} onInput={(event) => setThreshold(event.currentTarget.value)} />
          </Field>
          <button type="submit">Search</button>
        </div>
        {status}
        {results && (
          <Table
            caption={`Results for “${results.query}”`}
            rows={results.items}
            empty="No passage scored above the minimum."
            columns={[
              ['Score', (item) => item.score.toFixed(3)],
              ['Document', (item) => <a href={`#/documents/${encodeURIComponent(item.documentId)}`}>{item.documentName ?? item.documentId}</a>],
              ['Page', (item) => text(item.pageNumber)],
              ['Passage', (item) => <Highlighted content={item.content} query={results.query} />],
            ]}
          />
        )}
      </form>
    </search>
  );
}

function DocumentGraphs({ documentId, graphs }: { documentId: string; graphs: Rec[] }) {
  const entries = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/documents/{documentId}/graphs', { params: { path: { documentId } } })),
    [documentId],
  );
  const [target, setTarget] = useState('');
  const { run, status } = useAction();
  const share = async (event: Event) => {
    event.preventDefault();
    await run('Sharing', () =>
      unwrap(api().POST('/api/sdk/v1/documents/{documentId}/share', { params: { path: { documentId } }, body: { targetGraphId: target } as never })),
    );
    entries.reload();
  };
  const unshare = async (graphId: string) => {
    await run('Unsharing', () => unwrap(api().DELETE('/api/sdk/v1/documents/{documentId}/share/{graphId}', { params: { path: { documentId, graphId } } })));
    entries.reload();
  };
  return (
    <section aria-label="Graphs of the document">
      <Loaded state={entries} label="graphs">
        {(data) => (
          <Table
            caption="In graphs"
            rows={(data.graphs ?? []) as Rec[]}
            columns={[
              ['Graph', (entry) => entry.graphName ?? entry.graphId],
              ['Type', (entry) => entry.graphType],
              ['Primary', (entry) => (entry.isPrimary ? 'yes' : '')],
              ['Shared', (entry) => <Time value={entry.sharedAt} />],
              [
                '',
                (entry) =>
                  !entry.isPrimary && (
                    <button type="button" class="secondary" onClick={() => unshare(entry.graphId)}>
                      Unshare
                    </button>
                  ),
              ],
            ]}
          />
        )}
      </Loaded>
      <form class="row" onSubmit={share} aria-label="Share to a graph">
        <Field label="Share to graph">
          <select value={target} required onChange={(event) => setTarget(event.currentTarget.value)}>
            <option value="">choose…</option>
            {graphs.map((graph) => (
              <option value={graph.graphId}>
                {graph.graphName} ({graph.graphType})
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Share</button>
      </form>
      {status}
    </section>
  );
}

/** How many chunks the page shows before "show all": a long document has thousands. */
const chunkPreview = 20;

function DocumentDetail({ documentId, graphs }: { documentId: string; graphs: Rec[] }) {
  const found = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/documents/{documentId}', { params: { path: { documentId } } })), [documentId]);
  const [all, setAll] = useState(false);
  return (
    <Loaded state={found} label="the document">
      {(data) => {
        const document = data.document as Rec;
        const chunks = (data.chunks ?? []) as Rec[];
        return (
          <>
            <section aria-label={`Document ${document.title || document.filename}`}>
              <h2>
                {document.title || document.filename} <span class="badge">{document.status}</span>
              </h2>
              <dl>
                <dt>File</dt>
                <dd>
                  {document.filename} ({document.mimeType}, {document.sizeBytes} bytes)
                </dd>
                <dt>Author</dt>
                <dd>{text(document.author)}</dd>
                <dt>Tags</dt>
                <dd>{(document.productTags ?? []).join(', ') || '–'}</dd>
                <dt>Uploaded</dt>
                <dd>
                  <Time value={document.uploadedAt} />
                </dd>
                <dt>Chunks</dt>
                <dd>{document.chunkCount}</dd>
              </dl>
              <Table
                caption="Chunks"
                rows={all ? chunks : chunks.slice(0, chunkPreview)}
                empty="No chunks (yet)."
                columns={[
                  ['#', (chunk) => chunk.position + 1],
                  ['Page', (chunk) => text(chunk.pageNumber)],
                  ['Section', (chunk) => text(chunk.heading)],
                  ['Text', (chunk) => chunk.content],
                ]}
              />
              {!all && chunks.length > chunkPreview && (
                <button type="button" class="secondary" onClick={() => setAll(true)}>
                  Show all {chunks.length} chunks
                </button>
              )}
            </section>
            <DocumentGraphs documentId={documentId} graphs={graphs} />
            <a href="#/documents">All documents</a>
          </>
        );
      }}
    </Loaded>
  );
}

export function DocumentsPage({ param }: { param?: string }) {
  const [graphId, setGraphId] = useState('');
  const [groupName, setGroupName] = useState('');
  const graphs = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/graphs')), []);
  const documents = useLoad(
    (): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/documents', { params: { query: { limit: 50, ...(graphId && { graphId }) } as never } })),
    [graphId],
  );
  const { run, status } = useAction();
  const createGroup = async (event: Event) => {
    event.preventDefault();
    await run('Creating the group graph', () => unwrap(api().POST('/api/sdk/v1/graphs', { body: { name: groupName } })));
    graphs.reload();
  };
  const graphList = (graphs.data?.graphs ?? []) as Rec[];
  if (param) return <DocumentDetail key={param} documentId={param} graphs={graphList} />;
  return (
    <>
      <div class="row">
        <Field label="Graph">
          <select value={graphId} onChange={(event) => setGraphId(event.currentTarget.value)}>
            <option value="">personal</option>
            {graphList
              .filter((graph) => graph.graphType === 'group')
              .map((graph) => (
                <option value={graph.graphId}>{graph.graphName}</option>
              ))}
          </select>
        </Field>
        <form class="row" onSubmit={createGroup} aria-label="Create a group graph">
          <Field label="New group graph">
            <input value={groupName} required onInput={(event) => setGroupName(event.currentTarget.value)} />
          </Field>
          <button type="submit">Create group</button>
        </form>
      </div>
      {status}
      <Upload graphId={graphId} onUploaded={documents.reload} />
      <Search graphId={graphId} />
      <Loaded state={documents} label="documents">
        {(data) => (
          <Table
            caption="Documents, most recent first"
            rows={(data.documents ?? []) as Rec[]}
            columns={[
              ['Document', (item) => <a href={`#/documents/${encodeURIComponent(item.documentId)}`}>{item.title || item.filename}</a>],
              ['Status', (item) => text(item.status)],
              ['File', (item) => item.filename],
              ['Chunks', (item) => item.chunkCount],
              ['Tags', (item) => (item.productTags ?? []).join(', ')],
              ['Uploaded', (item) => <Time value={item.uploadedAt} />],
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
