// An invocation's log lines while it runs: batched into the run's live log a few times a second, so getExecution and
// the follow operation show them before the invocation ends. Bounded like the stored log; the lines the invocation
// ends with replace them.
import { logger } from '#platform/logger.js';
import type { LogLine } from '../model.js';
import type { PrintedLine } from './runtime-port.js';
import { storedLogBytes } from './stored-run.js';

/** How long lines gather before one write: a chatty script costs a few writes a second, not one per line. */
const batchMs = 250;

export function createLiveLog(invocation: number, append: (lines: LogLine[]) => Promise<void>) {
  let queued: LogLine[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    timer = undefined;
    if (!queued.length) return writing;
    const lines = queued;
    queued = [];
    // Live lines are a preview: a failed write costs the preview, never the run.
    writing = writing.then(() => append(lines)).catch((error: unknown) => logger.warn('live log lines not written', { error: String(error) }));
    return writing;
  };

  return {
    push(line: PrintedLine): void {
      bytes += Buffer.byteLength(line.text) + 1;
      if (bytes > storedLogBytes) return;
      queued.push({ ...line, invocation });
      timer ??= setTimeout(flush, batchMs);
    },
    /** Writes what is left and waits for every write, so nothing lands after the invocation's stored lines. */
    async close(): Promise<void> {
      clearTimeout(timer);
      await flush();
    },
  };
}
