/** Bytes to store: text, one buffer, or the chunks an upload arrived in (written without joining them). */
export type ObjectBody = string | Uint8Array | readonly Uint8Array[];

/**
 * The inbox's storage: a flat namespace of objects named by slash-separated paths
 * (`briefs/2026/11/22/<reference>/brief.json`). Drivers: filesystem and Vercel Blob.
 */
export interface ObjectStore {
  readonly driver: "filesystem" | "vercel-blob";
  /** Writes an object whole, replacing any earlier one; readers never see it half-written. */
  put(path: string, body: ObjectBody, contentType: string): Promise<void>;
  /** Writes an object only if none exists at `path`; `false` when one does. Atomic. */
  create(path: string, body: ObjectBody, contentType: string): Promise<boolean>;
  /** The object's bytes, or `null` when there is none. */
  get(path: string): Promise<Uint8Array | null>;
  /** Removes the object; removing a missing one is not an error. */
  delete(path: string): Promise<void>;
}

/** The store could not be reached or written. Answered as 503 `storage_unavailable`. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** Paths are built by this code base, never taken from a request; still, refuse anything odd. */
export function assertObjectPath(path: string): void {
  const segments = path.split("/");
  if (
    path.length === 0 ||
    path.length > 512 ||
    segments.some((segment) => segment === "" || segment === "." || segment === "..") ||
    /[\u0000-\u001f\\]/.test(path)
  ) {
    throw new Error(`Invalid object path: ${JSON.stringify(path)}`);
  }
}
