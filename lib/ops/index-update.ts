import { finishInBackground } from "../background";
import type { Delivery, Folder } from "../briefs";
import { describeFailure } from "../notify";
import type { ObjectStore } from "../store";
import { changeCatalog, markStale } from "./catalog";
import { deliveryStatus } from "./labels";
import { recordCounts } from "./month-check";
import {
  changeMonthIndex,
  changesPath,
  foldMonthChanges,
  type IndexChange,
  indexPath,
  recordMonthChange,
} from "./month-index";
import { monthNumber, monthPath } from "./reader";
import type { StoredBrief } from "./records";
import type { BriefState } from "./state";
import { deliverySerial, mergeSummary, summarize, tombstoneKey } from "./summary";

/**
 * Keeping the index current as the service writes (issue 33): each write that changes what a
 * summary holds updates its month's index and the catalog's counts right after, so a view trusts
 * months it does not list. The index is a cache: a failed update never fails the action (the
 * brief's own files are already written); the month is marked stale instead and the next view
 * checks it against the listing. Erasing is the exception: the erased text must leave the index, so
 * when the entry cannot be removed the month's index is deleted, and if that fails too, the erasure
 * fails as it did before.
 */

/** `briefs/YYYY/MM/DD/<reference>` -> its kind and month. */
export function placeOf(folder: string): { kind: Folder; month: number } {
  const [kind, year = "0", month = "1"] = folder.split("/");
  return { kind: kind === "spam" ? "spam" : "briefs", month: monthNumber(Number(year), Number(month)) };
}

/** Applies `change` to the month of `folder` and its counts; on failure marks the month stale. */
async function update(folder: string, store: ObjectStore, change: IndexChange, why: string): Promise<void> {
  const { kind, month } = placeOf(folder);
  try {
    const index = await changeMonthIndex(store, kind, month, change, { create: false });
    // No index of this version: the month is not indexed yet, and its rebuild will read the brief.
    if (index !== null) await recordCounts(store, kind, month, index);
  } catch (error) {
    await markStale(store, kind, month, `${why}: ${describeFailure(error)}`);
  }
}

/**
 * After `state.json` was written: the brief's status (and serial) in its month's changes, not the
 * month's whole index (`month-index.ts`), so a status change costs the same at any size. Once the
 * changes have piled up they are folded into the index after the answer.
 */
export async function indexStateChange(
  store: ObjectStore,
  brief: StoredBrief,
  state: BriefState,
): Promise<void> {
  const { kind, month } = placeOf(brief.folder);
  const why = `the state of ${brief.record.reference}`;
  try {
    const { counts, fold } = await recordMonthChange(store, kind, month, summarize({ ...brief, state }));
    if (counts === null) return;
    await changeCatalog(store, kind, { months: { [monthPath(month)]: counts } });
    if (fold) {
      const folding = foldMonthChanges(store, kind, month).then(
        (folded) => folded && recordCounts(store, kind, month, folded),
      );
      finishInBackground(folding, `folding the index changes of ${kind} ${monthPath(month)}`);
    }
  } catch (error) {
    await markStale(store, kind, month, `${why}: ${describeFailure(error)}`);
  }
}

/**
 * After `delivery.json` changed (a retry, a redelivery): the summary's delivery. A brief the index
 * does not hold yet is left to the view that finds it (it reads `delivery.json` then).
 */
export async function indexDeliveryChange(
  store: ObjectStore,
  folder: string,
  delivery: Delivery,
): Promise<void> {
  const { kind } = placeOf(folder);
  const serial = deliverySerial(delivery);
  await update(
    folder,
    store,
    (entries) => {
      const known = entries.get(folder);
      if (!known || known.deliverySerial > serial) return false;
      entries.set(folder, {
        ...known,
        delivery: deliveryStatus({ kind, delivery }),
        deliverySerial: serial,
        fingerprint: "",
        indexedAt: Date.now(),
      });
      return true;
    },
    `the delivery of ${folder}`,
  );
}

/** After "not spam" moved a catch into `briefs/` (a day that may be long past the watermark). */
export async function indexMove(store: ObjectStore, from: StoredBrief, to: StoredBrief): Promise<void> {
  await update(
    from.folder,
    store,
    (_, erased) => {
      erased.set(tombstoneKey(from.folder), Date.now());
      return true;
    },
    `moving ${from.record.reference} out of spam`,
  );
  const summary = summarize(to);
  await update(
    to.folder,
    store,
    (entries) => {
      entries.set(to.folder, mergeSummary(entries.get(to.folder), summary));
      return true;
    },
    `moving ${to.record.reference} into briefs`,
  );
}

/**
 * After erasing `folders` (one kind): their summaries leave the month indexes, with a tombstone
 * each so that a view that read one just before cannot bring it back. Throws when a month's index
 * can neither be updated nor deleted: the erasure is then not finished.
 */
export async function indexErase(
  store: ObjectStore,
  kind: Folder,
  folders: readonly string[],
): Promise<void> {
  const byMonth = new Map<number, string[]>();
  for (const folder of folders) {
    const { month } = placeOf(folder);
    byMonth.set(month, [...(byMonth.get(month) ?? []), folder]);
  }
  for (const [month, erased] of byMonth) {
    let index;
    try {
      index = await changeMonthIndex(
        store,
        kind,
        month,
        (_, tombs) => {
          for (const folder of erased) tombs.set(tombstoneKey(folder), Date.now());
          return true;
        },
        { create: false },
      );
    } catch (error) {
      console.warn(
        `[ops] could not update ${indexPath(kind, month)} after an erasure, deleting it: ${describeFailure(error)}`,
      );
      index = null;
    }
    if (index !== null) {
      await recordCounts(store, kind, month, index).catch(() =>
        markStale(store, kind, month, "counts after an erasure"),
      );
      continue;
    }
    // Damaged, of another version, or not writable: it (or its changes) may still hold the erased
    // text. Gone, and rebuilt later.
    await store.delete(indexPath(kind, month));
    await store.delete(changesPath(kind, month));
    await changeCatalog(store, kind, { forget: [month] }).catch(() =>
      markStale(store, kind, month, "its index was deleted after an erasure"),
    );
  }
}
