// Local mode is one process, and each of the events area's dispatch indexes (subscriptions, event waits) has one
// writer there: a key's lookup is kept in memory, shared by the events that arrive while it is under way, and dropped
// by every write of that key before the write answers. On AWS other containers write, so every event reads DynamoDB.
export function createLocalLookups<T>(maxKeys = 10_000) {
  const lookups = new Map<string, Promise<T>>();
  return {
    get(key: string, query: (key: string) => Promise<T>): Promise<T> {
      let lookup = lookups.get(key);
      if (!lookup) {
        if (lookups.size >= maxKeys) lookups.delete(lookups.keys().next().value!);
        const started = query(key);
        lookups.set(key, started);
        started.catch(() => lookups.get(key) === started && lookups.delete(key));
        lookup = started;
      }
      return lookup;
    },
    forget: (key: string) => lookups.delete(key),
  };
}
