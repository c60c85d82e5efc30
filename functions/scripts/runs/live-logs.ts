// A run's log lines while it runs: batched into the run's stored log a few times a second, so getExecution and the
// follow operation show them before the run ends. Bounded like the stored log; the finished run's logs replace them.
import { logger } from '#platform/logger.js';
import { storedLogBytes } from './stored-run.js';

/** How long lines gather before one write: a chatty script costs a few writes a second, not one per line. */
const batchMs = 250;

export function createLiveLog(append: (lines: string[]) => Promise<void>) {
  let queued: string[] = [];
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
    push(line: string): void {
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > storedLogBytes) return;
      queued.push(line);
      timer ??= setTimeout(flush, batchMs);
    },
    /** Writes what is left and waits for every write, so nothing lands after the finished run's logs. */
    async close(): Promise<void> {
      clearTimeout(timer);
      await flush();
    },
  };
}
