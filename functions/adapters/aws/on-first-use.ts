// What an adapter makes once per container, on its first call: the AWS SDK clients load here, so importing an
// adapter module (which every handler of the areas that use it does) costs next to nothing.

/** `make` runs on the first call; every later call gets the same promise. */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
