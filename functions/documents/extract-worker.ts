// Reading an original runs in a worker thread of its own, never on the event loop that answers requests: parsers are
// synchronous for long stretches (html-to-text on nested HTML, mammoth on a large part), and a hostile file must not
// hold or swell the process that serves everyone. Each extraction gets a fresh worker with a capped heap and a time
// limit; past either it is stopped and the document fails with the reason. The worker answers chunks, which the caps
// on text and chunk count bound, so what comes back is bounded too. The same module is the worker's code: bundled on
// AWS it is plain JavaScript, and from the TypeScript sources (tests, `npm start`) the worker loads it through tsx.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type ChunkDraft, chunkPages } from './chunker.js';
import { ExtractionError } from './extract-structured.js';
import { type SupportedMimeType, extraction } from './limits.js';

const role = 'document-extraction';

interface Job {
  role: typeof role;
  bytes: Uint8Array;
  mimeType: SupportedMimeType;
}

type Reply = { chunks: ChunkDraft[] } | { refused: string } | { failed: string };

async function chunksOf(bytes: Uint8Array, mimeType: SupportedMimeType): Promise<ChunkDraft[]> {
  // The parsers load in the worker only: the thread that answers requests never reads an original itself.
  const { extractPages } = await import('./extract.js');
  const drafts = chunkPages(await extractPages(bytes, mimeType));
  if (drafts.length > extraction.chunks) throw new ExtractionError(`the file makes ${drafts.length} chunks; the limit is ${extraction.chunks}`);
  return drafts;
}

if (!isMainThread && (workerData as Job | undefined)?.role === role) {
  const { bytes, mimeType } = workerData as Job;
  const reply = (message: Reply) => parentPort!.postMessage(message);
  chunksOf(bytes, mimeType).then(
    (chunks) => reply({ chunks }),
    (error: unknown) => reply(error instanceof ExtractionError ? { refused: error.message } : { failed: (error as Error).message }),
  );
}

const moduleUrl = import.meta.url;

/** The caps a worker runs under (tests lower them to reach them quickly). */
interface WorkerCaps {
  workerHeapMb: number;
  timeMs: number;
}

function startWorker(job: Job, caps: WorkerCaps): Worker {
  const options = {
    workerData: job,
    // Not the parent's flags: some are refused in a worker (`--input-type`), and the heap cap below is its own.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: caps.workerHeapMb, maxYoungGenerationSizeMb: Math.min(64, caps.workerHeapMb / 4) },
  };
  if (!moduleUrl.endsWith('.ts')) return new Worker(new URL(moduleUrl), options);
  // Resolved here: an eval worker resolves packages from the working directory, which need not be the repository.
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); })`, {
    ...options,
    eval: true,
  });
}

/** Extractions whose worker is running, each stoppable with the error its caller gets. */
const running = new Set<(error: Error) => void>();
/** Extractions waiting for one of the `extraction.concurrent` turns. */
const waiting: Array<{ start(): void; refuse(error: Error): void }> = [];
let active = 0;
/** While a shutdown drains its jobs, the error new extractions are refused with. */
let refusal: Error | undefined;

function runWorker(bytes: Uint8Array, mimeType: SupportedMimeType, caps: WorkerCaps): Promise<ChunkDraft[]> {
  const seconds = caps.timeMs / 1000;
  return new Promise((resolve, reject) => {
    const worker = startWorker({ role, bytes, mimeType }, caps);
    let outcome: Error | undefined;
    const stop = (error: Error) => {
      outcome ??= error;
      void worker.terminate();
    };
    const timer = setTimeout(() => stop(new ExtractionError(`reading the file took longer than ${seconds} s; the limit is ${seconds} s`)), caps.timeMs);
    running.add(stop);
    worker.once('message', (reply: Reply) => {
      if ('chunks' in reply) resolve(reply.chunks);
      else reject('refused' in reply ? new ExtractionError(reply.refused) : new Error(reply.failed));
      void worker.terminate();
    });
    worker.once('error', (error: Error & { code?: string }) => {
      outcome ??=
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ExtractionError(`reading the file needs more than ${caps.workerHeapMb} MB of memory; the limit is ${caps.workerHeapMb} MB`)
          : error;
    });
    worker.once('exit', () => {
      clearTimeout(timer);
      running.delete(stop);
      reject(outcome ?? new Error('the extraction worker ended without an answer'));
    });
  });
}

async function turn(): Promise<void> {
  if (refusal) throw refusal;
  if (active < extraction.concurrent) {
    active++;
    return;
  }
  await new Promise<void>((start, refuse) => waiting.push({ start, refuse }));
}

/** The turn passes straight to the next waiting extraction, so none can slip in between. */
function release(): void {
  const next = waiting.shift();
  if (next) next.start();
  else active--;
}

/** Chunks of an original, read in a worker within the caps of `extraction`; ExtractionError says why a file is refused. */
export async function extractChunks(bytes: Uint8Array, mimeType: SupportedMimeType, caps: WorkerCaps = extraction): Promise<ChunkDraft[]> {
  await turn();
  try {
    return await runWorker(bytes, mimeType, caps);
  } finally {
    release();
  }
}

/**
 * For a shutdown: stops every extraction running or waiting (their documents fail with `error`'s message) and refuses
 * new ones until `drained` settles, so the jobs it waits for end without waiting on a parser.
 */
export async function stopExtractions<T>(error: Error, drained: () => Promise<T>): Promise<T> {
  refusal = error;
  try {
    for (const entry of waiting.splice(0)) entry.refuse(error);
    for (const stop of running) stop(error);
    return await drained();
  } finally {
    refusal = undefined;
  }
}
