import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import { subscribe } from "@/lib/newsletter/subscribers";
import { NO_FILTER } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { setStatus } from "@/lib/ops/state";
import { parseCsv } from "../support/csv";
import { readJson, runInbox, storeBrief } from "../support/ops";
import { tempDir } from "../support/server";

/**
 * The ops tool's verbs shared with the inbox on the web (status, note, erase, audit), run as ops
 * run them, over the same lib/ops code and the same files the web inbox reads.
 */

let dir: string;
let store: FilesystemStore;
const run = (args: string[]) => runInbox(args, { env: { INBOX_DIR: dir } });

beforeEach(async () => {
  dir = await tempDir("inbox-verbs-");
  store = new FilesystemStore(dir);
});

afterEach(() => {});

describe("inbox tool: status, note, erase, audit", () => {
  it("sets a status and adds a note, shown by list, show and the CSV, and audited under --by", async () => {
    const brief = await storeBrief(store, { receivedAt: "2026-11-20T09:00:00.000Z" });
    const reference = brief.record.reference.toLowerCase().replaceAll("-", "");

    const status = await run(["status", reference, "handled", "--by", "ada@studio.example"]);
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(`${brief.record.reference}: new -> handled\n`);
    expect((await run(["status", reference, "handled"])).stdout).toContain("was already handled");
    expect((await run(["status", reference, "done"])).code).toBe(2);

    const note = await run([
      "note",
      reference,
      "Called back, sending a quote.",
      "--by",
      "ada@studio.example",
    ]);
    expect(note.code).toBe(0);
    expect((await run(["note", reference, "   "])).code).toBe(2);

    expect((await run(["list"])).stdout).toMatch(/\shandled\s+—\s+pending$/m);
    const show = await run(["show", brief.record.reference]);
    expect(show.stdout).toContain("Status        handled");
    expect(show.stdout).toContain("Called back, sending a quote.");
    const csv = parseCsv((await run(["export", "--format", "csv"])).stdout);
    expect(csv[1]?.[csv[0]?.indexOf("status") ?? -1]).toBe("handled");

    const state = await readJson<{ status: string; notes: { by: string }[] }>(
      store,
      `${brief.folder}/state.json`,
    );
    expect(state).toMatchObject({ status: "handled", notes: [{ by: "ada@studio.example" }] });

    const audit = await run(["audit", "--json"]);
    const entries = JSON.parse(audit.stdout) as { action: string; actor: string }[];
    expect(entries.map((entry) => entry.action)).toEqual(["note", "status", "status"]);
    expect(
      entries.every((entry) => entry.actor === "ada@studio.example" || entry.actor.startsWith("ops-tool:")),
    ).toBe(true);
  });

  it("reindex rebuilds the list's index from the briefs, so a hand edit is seen", async () => {
    const brief = await storeBrief(store, { receivedAt: "2026-01-20T09:00:00.000Z" });
    await storeBrief(store, { receivedAt: "2026-01-21T09:00:00.000Z", folder: "spam" });
    const now = new Date("2026-03-01T12:00:00.000Z");
    const page = () => searchBriefs(store, "briefs", NO_FILTER, { now, background: false });
    expect((await page()).counts.handled).toBe(0);
    // By hand, outside the service: the settled month does not see it.
    await setStatus(store, brief.folder, "handled", "by hand", now);
    expect((await page()).counts.handled).toBe(0);

    const reindex = await run(["reindex"]);
    expect(reindex.stderr).toBe("");
    expect(reindex.code).toBe(0);
    expect(reindex.stdout).toMatch(
      /^briefs: \d+ months indexed in [\d.]+ s\nspam: \d+ months indexed in [\d.]+ s\nsubscribers: \d+ indexed in [\d.]+ s\n$/,
    );
    expect((await page()).counts.handled).toBe(1);
  });

  it("erase shows the counts, and removes only with --confirm repeating the address", async () => {
    const brief = await storeBrief(store, { fields: { email: "Gone@Client.example" } });
    await storeBrief(store, { folder: "spam", fields: { email: "gone@client.example" } });
    const kept = await storeBrief(store, {});
    await subscribe(store, { email: "gone@client.example", topics: [] });

    const dry = await run(["erase", "gone@client.example"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("1 brief, 1 spam entry, 1 subscriber record");
    expect(await readJson(store, `${brief.folder}/brief.json`)).not.toBeNull();

    expect((await run(["erase", "gone@client.example", "--confirm", "other@client.example"])).code).toBe(1);
    expect(await readJson(store, `${brief.folder}/brief.json`)).not.toBeNull();

    const done = await run(["erase", "gone@client.example", "--confirm", "GONE@client.example"]);
    expect(done.code).toBe(0);
    expect(await readJson(store, `${brief.folder}/brief.json`)).toBeNull();
    expect(await readJson(store, `${kept.folder}/brief.json`)).not.toBeNull();
    const audit = JSON.parse((await run(["audit", "--json"])).stdout) as {
      action: string;
      target: unknown;
    }[];
    expect(audit[0]).toMatchObject({ action: "erase", target: { briefs: 1, spam: 1, subscribers: 1 } });
    expect(JSON.stringify(audit)).not.toContain("gone@");
  });
});
