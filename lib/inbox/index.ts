import type { Config } from "../config";
import { FilesystemStore } from "./filesystem";
import type { ObjectStore } from "./types";

export { briefFolder, saveBrief } from "./briefs";
export type { AttachmentRecord, AttachmentUpload, BriefRecord, ClientRecord, Folder } from "./briefs";
export { StoreUnavailableError } from "./types";
export type { ObjectBody, ObjectInfo, ObjectStore, StoreCallOptions } from "./types";

/** The inbox's store, from the configured driver. */
export function createStore(config: Config): ObjectStore {
  switch (config.inbox.driver) {
    case "filesystem":
      return new FilesystemStore(config.inbox.dir);
    case "vercel-blob":
      throw new Error("The Vercel Blob inbox is not available in this build.");
  }
}
