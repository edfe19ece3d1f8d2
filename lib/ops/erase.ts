import { forgetDeliveries } from "../deliveries";
import type { ObjectStore } from "../store";
import type { Folder } from "../briefs";
import { subscriberId, subscriberPath } from "../newsletter/subscribers";
import type { InboxRecordError } from "./errors";
import { indexErase } from "./index-update";
import { summariesInRange } from "./search";
import { eraseSubscriber } from "./subscriber-index";

/**
 * Erasing an address (the right to be forgotten): every brief and honeypot catch sent from it,
 * every file of their folders, and its newsletter subscriber record. Addresses are compared
 * lowercased, as the newsletter compares them. Their summaries leave the month indexes (each with a
 * tombstone, see `index-update.ts`), so neither the list, a search nor a download finds anything
 * afterwards.
 */

export interface ErasePlan {
  /** The address, trimmed, as it was asked for. */
  email: string;
  /** SHA-256 of the lowercased address: what the audit log records instead of it. */
  emailSha256: string;
  briefs: string[];
  spam: string[];
  subscriber: boolean;
}

export interface EraseResult {
  emailSha256: string;
  briefs: number;
  spam: number;
  subscribers: number;
}

/** The folders of `kind` holding a brief from `email`. */
async function foldersFrom(
  store: ObjectStore,
  kind: Folder,
  email: string,
  now: Date,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<string[]> {
  const wanted = email.toLowerCase();
  const summaries = await summariesInRange(store, kind, { from: null, to: null }, now, onProblem);
  return summaries
    .filter((summary) => summary.email.trim().toLowerCase() === wanted)
    .map((summary) => summary.folder);
}

/** What erasing `email` would remove; nothing is changed. */
export async function planErase(
  store: ObjectStore,
  email: string,
  { now = new Date(), onProblem }: { now?: Date; onProblem?: (problem: InboxRecordError) => void } = {},
): Promise<ErasePlan> {
  const address = email.trim();
  const [briefs, spam, subscriber] = await Promise.all([
    foldersFrom(store, "briefs", address, now, onProblem),
    foldersFrom(store, "spam", address, now, onProblem),
    store.get(subscriberPath(address)),
  ]);
  return {
    email: address,
    emailSha256: subscriberId(address),
    briefs,
    spam,
    subscriber: subscriber !== null,
  };
}

/**
 * Removes every file of one brief folder: `brief.json` first, so it never points at a missing file.
 * Then the folder is listed again: a delivery attempt that checked its claim just before the erase
 * removed its due record may still land its log after the first listing.
 */
export async function removeFolder(store: ObjectStore, folder: string): Promise<void> {
  const paths: string[] = [];
  for await (const info of store.list(`${folder}/`)) paths.push(info.path);
  const brief = `${folder}/brief.json`;
  if (paths.includes(brief)) await store.delete(brief);
  for (const path of paths) if (path !== brief) await store.delete(path);
  for await (const info of store.list(`${folder}/`)) await store.delete(info.path);
}

/**
 * Erases brief folders of one kind, every file of each, and takes their summaries out of the month
 * indexes: what both an erasure and retention go through, so each erases a brief alike.
 *
 * Ordered against delivery attempts in flight (lib/deliveries): each brief's due records go first,
 * which takes every attempt's claim away, so an attempt that has not sent yet never does, and one
 * under way records nothing (what it wrote after the erase it removes once `brief.json` is gone).
 * Its due and failed records are removed once more after its files, for a failed record an attempt
 * made in between.
 */
export async function eraseFolders(
  store: ObjectStore,
  kind: Folder,
  folders: readonly string[],
): Promise<void> {
  for (const folder of folders) {
    const reference = folder.split("/").at(-1) ?? "";
    await forgetDeliveries(store, reference);
    await removeFolder(store, folder);
    await forgetDeliveries(store, reference);
  }
  await indexErase(store, kind, folders);
}

/** Carries out a plan made by `planErase`. */
export async function erase(store: ObjectStore, plan: ErasePlan): Promise<EraseResult> {
  await eraseFolders(store, "briefs", plan.briefs);
  await eraseFolders(store, "spam", plan.spam);
  if (plan.subscriber) await eraseSubscriber(store, plan.emailSha256);
  return {
    emailSha256: plan.emailSha256,
    briefs: plan.briefs.length,
    spam: plan.spam.length,
    subscribers: plan.subscriber ? 1 : 0,
  };
}
