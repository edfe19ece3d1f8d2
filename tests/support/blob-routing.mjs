// Plain JavaScript because Node 20 cannot load TypeScript with --import: the same module serves
// in-process tests (imported) and `next start` (through blob-preload.mjs).
import { Agent, setGlobalDispatcher } from "undici";

const BLOB_STORAGE = /\.blob\.vercel-storage\.com$/i;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Installs a global undici dispatcher (shared by the `undici` package, which @vercel/blob uses,
 * and Node's own fetch) that sends requests for `*.blob.vercel-storage.com` to the stand-in at
 * `standInOrigin`, keeping the original Host header so the stand-in knows the store and access,
 * and refuses every other destination that is not loopback: tests never leave this machine.
 * Returns a function that puts the previous dispatcher back.
 */
export function routeBlobStorageTo(standInOrigin) {
  const previous = globalThis[Symbol.for("undici.globalDispatcher.1")];
  const agent = new Agent().compose((dispatch) => (options, handler) => {
    const target = new URL(String(options.origin));
    if (BLOB_STORAGE.test(target.hostname)) {
      return dispatch(
        { ...options, origin: standInOrigin, headers: withHost(options.headers, target.host) },
        handler,
      );
    }
    if (!LOOPBACK.has(target.hostname)) {
      handler.onError(new Error(`Tests may only use loopback; refused a request to ${target.origin}`));
      return true;
    }
    return dispatch(options, handler);
  });
  setGlobalDispatcher(agent);
  return () => {
    if (previous) setGlobalDispatcher(previous);
    void agent.close();
  };
}

function withHost(headers, host) {
  if (Array.isArray(headers)) return [...headers, "host", host];
  return { ...headers, host };
}
