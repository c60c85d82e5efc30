// The local scheduler's pending one-time firings: a min-heap by due time in memory, and on disk an append-only log
// of puts and removals (they outlive a restart, as AWS schedules do). Adding or removing one appends one line and
// sifts the heap: it never rewrites the others. The log is rewritten from the live set only once most of its lines
// are dead, so that cost is spread over as many writes as the log holds. A firing taken when due stays in the log until
// its delivery is done (`done`): one whose process died mid-delivery fires again at the next start, as AWS retries a
// delivery its target did not finish.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { OneShotDefinition } from '#platform/ports.js';

type LogLine = { put: OneShotDefinition } | { remove: string };

interface HeapItem {
  at: number;
  once: OneShotDefinition;
}

/** The log is compacted, and the heap rebuilt, once they hold this many lines or items per live firing (and at least minCompactLines). */
const deadLinesPerLive = 2;
const minCompactLines = 1_000;

export interface OneShotStore {
  put(once: OneShotDefinition): void;
  /** False when none of that name is pending. */
  remove(name: string): boolean;
  /** The due time (epoch ms) of the earliest pending firing, or undefined when none is pending. */
  earliest(): number | undefined;
  /** Takes every firing due by `now` out of the pending ones, earliest first; each stays in the log until `done`. */
  takeDue(now: number): OneShotDefinition[];
  /** The taken firing was delivered: it leaves the log, unless its name was put again or removed meanwhile. */
  done(once: OneShotDefinition): void;
  /** The pending firings (not those taken and not yet done). */
  all(): OneShotDefinition[];
  readonly size: number;
}

export function createOneShotStore(file?: string): OneShotStore {
  const live = new Map<string, OneShotDefinition>();
  /** Taken and being delivered: kept in the log, out of the heap. */
  const delivering = new Map<string, OneShotDefinition>();
  // Lazy removal: an item whose definition is no longer the live one of its name is skipped when it reaches the top.
  const heap: HeapItem[] = [];
  let logLines = 0;

  const before = (a: HeapItem, b: HeapItem) => a.at < b.at;
  function push(item: HeapItem) {
    heap.push(item);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }
  function pop(): HeapItem | undefined {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const [left, right] = [2 * index + 1, 2 * index + 2];
        let smallest = index;
        if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
        index = smallest;
      }
    }
    return top;
  }
  /** The top item if it is live; stale ones on the way are dropped. */
  function top(): HeapItem | undefined {
    while (heap.length > 0 && live.get(heap[0]!.once.name) !== heap[0]!.once) pop();
    return heap[0];
  }

  function append(lines: LogLine[]) {
    if (!file || lines.length === 0) return;
    appendFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    logLines += lines.length;
    if (logLines > Math.max(minCompactLines, deadLinesPerLive * live.size)) compact();
  }
  function compact() {
    if (!file) return;
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, [...live.values(), ...delivering.values()].map((once) => `${JSON.stringify({ put: once })}\n`).join(''));
    renameSync(temporary, file);
    logLines = live.size;
  }

  function apply(line: LogLine) {
    if ('put' in line) {
      live.set(line.put.name, line.put);
      push({ at: Date.parse(line.put.at), once: line.put });
      // Replaced and removed firings stay in the heap until they reach its top: rebuilt when they are most of it.
      if (heap.length > Math.max(minCompactLines, deadLinesPerLive * live.size)) rebuild();
    } else live.delete(line.remove);
  }
  function rebuild() {
    heap.length = 0;
    for (const once of live.values()) push({ at: Date.parse(once.at), once });
  }

  if (file && existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    // The store's first format was one JSON array of definitions.
    if (text.startsWith('[')) for (const once of JSON.parse(text) as OneShotDefinition[]) apply({ put: once });
    else {
      const lines = text.split('\n').filter(Boolean);
      lines.forEach((line, index) => {
        try {
          apply(JSON.parse(line) as LogLine);
        } catch (error) {
          // Only the last line can be cut short (a crash mid-append): what came before it stands.
          if (index < lines.length - 1) throw error;
        }
      });
    }
    compact();
  }

  return {
    put(once) {
      delivering.delete(once.name);
      apply({ put: once });
      append([{ put: once }]);
    },
    remove(name) {
      const pending = live.delete(name);
      if (!pending && !delivering.delete(name)) return false;
      append([{ remove: name }]);
      return pending;
    },
    earliest: () => top()?.at,
    takeDue(now) {
      const due: OneShotDefinition[] = [];
      for (let item = top(); item && item.at <= now; item = top()) {
        pop();
        live.delete(item.once.name);
        delivering.set(item.once.name, item.once);
        due.push(item.once);
      }
      return due;
    },
    done(once) {
      if (delivering.get(once.name) !== once) return;
      delivering.delete(once.name);
      append([{ remove: once.name }]);
    },
    all: () => [...live.values()],
    get size() {
      return live.size;
    },
  };
}
