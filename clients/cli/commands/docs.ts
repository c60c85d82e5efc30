// `platform docs upload|search`: an upload URL, the file PUT with a progress bar, then processing to completion.
import { createReadStream, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { Readable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { unwrap } from '../../typescript/src/index.js';
import { UsageError, clientFor, optionsOf, output } from '../context.js';

const mimeTypes: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function registerDocumentCommands(program: Command): void {
  const docs = program.command('docs').description('documents: upload and search');

  docs
    .command('upload <file>')
    .description('upload a file into your graph (or --graph) and wait until it is searchable')
    .option('--graph <graphId>', 'a group graph instead of your personal one')
    .option('--mime-type <type>', 'when the extension does not tell')
    .action(async (file: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const client = clientFor(options);
      const mimeType = options.mimeType ?? mimeTypes[extname(file).toLowerCase()];
      if (!mimeType) throw new UsageError(`cannot tell the type of ${file}: give --mime-type`);
      const size = statSync(file).size;
      const ticket = await unwrap(
        client.POST('/api/sdk/v1/documents/upload-url', {
          body: { size, filename: basename(file), mimeType, ...(options.graph && { graphId: options.graph }) } as never,
        }),
      );
      // Progress on stderr, so `--json` output stays clean on stdout.
      const bar = new SingleBar({
        format: 'upload |{bar}| {percentage}% {value}/{total} bytes',
        stream: process.stderr,
        noTTYOutput: true,
        notTTYSchedule: 1000,
      });
      bar.start(size, 0);
      const stream = createReadStream(file);
      stream.on('data', (chunk) => bar.increment(chunk.length));
      const put = await fetch(ticket.uploadUrl, {
        method: 'PUT',
        headers: { ...ticket.headers, 'content-length': String(size) },
        body: Readable.toWeb(stream) as never,
        duplex: 'half',
      } as RequestInit);
      bar.stop();
      if (!put.ok) throw new Error(`upload refused (${put.status}): ${(await put.text()).slice(0, 500)}`);
      await unwrap(client.POST('/api/sdk/v1/documents/{documentId}/complete', { params: { path: { documentId: ticket.documentId } } }));
      let status = await unwrap(client.GET('/api/sdk/v1/documents/{documentId}/status', { params: { path: { documentId: ticket.documentId } } }));
      while (status.status === 'processing' || status.status === 'uploading') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        status = await unwrap(client.GET('/api/sdk/v1/documents/{documentId}/status', { params: { path: { documentId: ticket.documentId } } }));
      }
      if (status.status === 'failed') throw new Error(`processing failed: ${status.failureReason ?? 'no reason given'}`);
      output(options, status, () => `${ticket.documentId} ${status.status}: ${status.chunkCount} chunks in ${status.processingTimeMs ?? 0} ms`);
    });

  docs
    .command('search <query>')
    .description('search your graph (or --graph)')
    .option('--graph <graphId>', 'a group graph instead of your personal one')
    .option('--limit <n>', 'results', '5')
    .option(
      '--threshold <score>',
      'lowest score (0 to 1) a result needs (default 0.7: likely answers the question); 0 lists the best matches whatever their score',
    )
    .action(async (query: string, _local: unknown, command: Command) => {
      const options = optionsOf(command);
      const found = await unwrap(
        clientFor(options).POST('/api/sdk/v1/documents/search', {
          body: {
            query,
            limit: Number(options.limit),
            ...(options.threshold !== undefined && { threshold: Number(options.threshold) }),
            ...(options.graph && { graphId: options.graph }),
          } as never,
        }),
      );
      output(options, found, () =>
        found.results.length
          ? found.results.map((hit) => `${hit.score.toFixed(3)}  ${hit.documentName}: ${hit.content.replace(/\s+/g, ' ').slice(0, 160)}`)
          : 'no results',
      );
    });
}
