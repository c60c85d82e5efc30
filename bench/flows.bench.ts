// Flows: (1) 1,000 active time flows due in the same minute, every start measured from that minute (local mode);
// (2) searchFlows over one user's 1,000 flows, both variants.
import { measureMinute } from './flows-minute.js';
import { measureSearch } from './flows-search.js';
import { type BenchFigure, startBarePlatform } from './support.js';

export const name = 'flows';
export const description = '1,000 time flows due in one minute: start offsets; searchFlows over 1,000 flows of a user (both variants)';

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  try {
    const minute = await measureMinute(platform);
    const search = await measureSearch(platform);
    return [...minute, ...search];
  } finally {
    await platform.stop();
  }
}
