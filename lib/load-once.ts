/**
 * `make`, run at the first call and its result kept: for an integration's SDK, loaded (with
 * `import()`) only by a server whose configuration uses it, and only once something needs it, so a
 * cold start never pays for what it does not use. A failed `make` is tried again by the next call.
 */
export function loadOnce<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}
