// Runs of one script from this process wait their turn instead of being refused: the scripts area allows 10
// concurrent executions per script, and a minute's worth of time flows on one script would otherwise
// fail on CONCURRENCY_LIMIT and enter the retry ladder for nothing.

export function createScriptGate(limit: number) {
  const lanes = new Map<string, { active: number; waiting: Array<() => void> }>();
  return {
    async run<T>(scriptId: string, work: () => Promise<T>): Promise<T> {
      let lane = lanes.get(scriptId);
      if (!lane) lanes.set(scriptId, (lane = { active: 0, waiting: [] }));
      if (lane.active >= limit) await new Promise<void>((turn) => lane.waiting.push(turn));
      else lane.active++;
      try {
        return await work();
      } finally {
        const next = lane.waiting.shift();
        if (next) next();
        else if (--lane.active === 0) lanes.delete(scriptId);
      }
    },
  };
}
