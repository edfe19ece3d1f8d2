import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** Every file under an inbox directory, as slash-separated paths relative to it, sorted. */
export async function listInbox(root: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else found.push(relative(root, path).split("\\").join("/"));
    }
  }
  await walk(root);
  return found.sort();
}

/** The folder of a stored brief by reference, e.g. `briefs/2026/11/22/K7QM-...`. */
export async function findBriefFolder(root: string, reference: string): Promise<string | undefined> {
  const files = await listInbox(root);
  const match = files.find((file) => file.endsWith(`/${reference}/brief.json`));
  return match?.slice(0, -"/brief.json".length);
}

export async function readBriefJson(root: string, reference: string): Promise<Record<string, unknown>> {
  const folder = await findBriefFolder(root, reference);
  if (!folder) throw new Error(`brief ${reference} is not in ${root}`);
  return JSON.parse(await readFile(join(root, folder, "brief.json"), "utf8")) as Record<string, unknown>;
}

/**
 * How long a test waits for a brief's `delivery.json` to appear: the answer waits only 500 ms for
 * it (`recordInBackground`), and on a loaded machine the durable write can finish after the
 * answer, within its own 5 s bound.
 */
const DELIVERY_RECORD_WAIT_MS = 6_000;

/**
 * A brief's `delivery.json`, waited for while it is not there yet (`waitMs`), or `null` when it
 * still is not. A test that expects none passes `{ waitMs: 0 }`.
 */
export async function readDeliveryJson(
  root: string,
  reference: string,
  { waitMs = DELIVERY_RECORD_WAIT_MS }: { waitMs?: number } = {},
): Promise<Record<string, { ok: boolean; at: string; error?: string }> | null> {
  const folder = await findBriefFolder(root, reference);
  if (!folder) throw new Error(`brief ${reference} is not in ${root}`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return JSON.parse(await readFile(join(root, folder, "delivery.json"), "utf8")) as Record<
        string,
        { ok: boolean; at: string; error?: string }
      >;
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
      if (Date.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
