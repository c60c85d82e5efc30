// The line an attack suite prints: how many of its attacks ran and how many got through (a failed test is one that
// got through), so `npm run test:hardening` shows every suite's totals.
import { afterAll, afterEach } from 'vitest';

export function printAttackSummary(suite: string) {
  const through: string[] = [];
  let tried = 0;
  afterEach(({ task }) => {
    tried += 1;
    if (task.result?.state === 'fail') through.push(task.name);
  });
  afterAll(() => console.log(`${suite}: ${tried} attacks, got through ${through.length}${through.length ? ` (${through.join('; ')})` : ''}`));
}
