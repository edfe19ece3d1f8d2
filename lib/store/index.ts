import type { Config } from "../config";
import { BlobStore } from "./blob";
import { FilesystemStore } from "./filesystem";
import type { ObjectStore } from "./types";

export {
  type Change,
  createIfAbsent,
  type CreateOutcome,
  replaceIfUnchanged,
  updateObject,
} from "./conditional";
export { CallDeadlines, Deadline } from "./deadline";
export { type ExpiryRule, type RemoveExpiredOptions, removeExpired } from "./expiry";
export { ABANDONED_UPLOAD_AGE_MS } from "./spool";
export { ObjectTooLargeError, StoreUnavailableError } from "./types";
export type {
  AbandonedUpload,
  GetOptions,
  ObjectBody,
  ObjectEntry,
  ObjectInfo,
  ObjectStore,
  ObjectStream,
  ObjectUpload,
  StoreCallOptions,
  VersionedObject,
} from "./types";

/** The object store the inbox lives in, from the configured driver. */
export function createStore(config: Config): ObjectStore {
  switch (config.inbox.driver) {
    case "filesystem":
      return new FilesystemStore(config.inbox.dir);
    case "vercel-blob":
      return new BlobStore(config.inbox.token);
  }
}
