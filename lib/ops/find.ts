import type { ObjectStore } from "../store";
import { monthOfKey, readCatalog } from "./catalog";
import { indexedFolder } from "./month-index";
import { findBriefByListing, readBrief } from "./reader";
import type { StoredBrief } from "./records";

const MONTHS_AT_ONCE = 4;

/**
 * The brief with this (canonical) reference, real or caught by the honeypot; `null` when there is
 * none. What every page and action of one brief starts with, so it must not cost the history:
 * listing the months newest first down to an old brief's took 25 s at 50,000 briefs on the
 * filesystem inbox. The list's index knows each brief's folder, whose path names its day: the
 * indexed months' statuses are read newest first (the small part of each index, not its
 * summaries), and the brief is read from its own files in the folder named. The index is a
 * cache and may not know a brief (one just arrived, or written around the service) or still name
 * one that has gone: then the months are listed, as they always were.
 */
export async function findBrief(
  store: ObjectStore,
  reference: string,
  now = new Date(),
): Promise<StoredBrief | null> {
  for (const kind of ["briefs", "spam"] as const) {
    const catalog = await readCatalog(store, kind).catch(() => null);
    const months = Object.keys(catalog?.months ?? {})
      .map(monthOfKey)
      .sort((a, b) => b - a);
    // A few months at once (newest first): each is one read of a few hundred KB.
    for (let start = 0; start < months.length; start += MONTHS_AT_ONCE) {
      const named = await Promise.all(
        months
          .slice(start, start + MONTHS_AT_ONCE)
          .map((month) => indexedFolder(store, kind, month, reference).catch(() => null)),
      );
      const folder = named.find((each) => each !== null);
      if (folder === undefined || folder === null) continue;
      // Its three files read at once, as a listing would have found them (a missing one reads as absent).
      const entry = {
        folder,
        reference,
        day: folder.split("/").slice(1, 4).join("-"),
        hasBrief: true,
        hasDelivery: true,
        hasState: true,
        fingerprint: "",
      };
      const brief = await readBrief(store, kind, entry);
      if (brief !== null) return brief;
      break;
    }
  }
  return findBriefByListing(store, reference, now);
}
