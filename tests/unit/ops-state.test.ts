import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import { subscribe } from "@/lib/newsletter/subscribers";
import { readAudit, recordAudit } from "@/lib/ops/audit";
import { erase, planErase } from "@/lib/ops/erase";
import { findBrief } from "@/lib/ops/find";
import { NO_FILTER, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { addNote, noteProblem, setStatus } from "@/lib/ops/state";
import { attachmentFor, readJson, storeBrief } from "../support/ops";

/**
 * The ops inbox's shared code (lib/ops) over a real filesystem store: state.json with conditional
 * writes, the audit log, search with the per-month index, and erasure.
 */

let dir: string;
let store: FilesystemStore;
const now = new Date("2026-03-20T12:00:00.000Z");

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-state-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("state.json", () => {
  it("a brief without one is new; status and notes are kept, and concurrent saves lose nothing", async () => {
    const { folder, record } = await storeBrief(store, { receivedAt: "2026-03-01T10:00:00.000Z" });
    expect((await findBrief(store, record.reference, now))?.state.status).toBe("new");

    await Promise.all([
      setStatus(store, folder, "handled", "ada@studio.example", now),
      setStatus(store, folder, "archived", "bob@studio.example", now),
      addNote(store, folder, "Called back.", "ada@studio.example", now),
      addNote(store, folder, "Sent a quote.", "bob@studio.example", now),
    ]);
    const state = (await findBrief(store, record.reference, now))?.state;
    expect(state?.history.map((change) => change.status).sort()).toEqual(["archived", "handled"]);
    expect(["handled", "archived"]).toContain(state?.status);
    expect(state?.notes.map((note) => note.text).sort()).toEqual(["Called back.", "Sent a quote."]);
    // brief.json itself is never rewritten.
    expect(await readJson(store, `${folder}/brief.json`)).toEqual(record);
  });

  it.each<[string, string | null]>([
    ["Called back.", null],
    ["   ", "Write the note first."],
    ["x".repeat(5_001), "A note is at most 5000 characters."],
    ["bell \u0007", "A note cannot hold control characters."],
    ["two\nlines\twith a tab", null],
  ])("noteProblem(%j)", (text, problem) => {
    expect(noteProblem(text)).toBe(problem);
  });
});

describe("audit log", () => {
  it("keeps one object per event under audit/YYYY/MM/DD, read back newest first", async () => {
    await recordAudit(store, { actor: "ada@studio.example", action: "sign-in", target: null }, now);
    await recordAudit(
      store,
      { actor: "ada@studio.example", action: "status", target: { reference: "R", status: "handled" } },
      new Date(now.getTime() + 1_000),
    );
    const entries = await readAudit(store);
    expect(entries.map((entry) => entry.action)).toEqual(["status", "sign-in"]);
    const paths: string[] = [];
    for await (const info of store.list("audit/")) paths.push(info.path);
    expect(paths).toHaveLength(2);
    for (const path of paths) expect(path).toMatch(/^audit\/2026\/03\/20\/\d{9}-[0-9a-f]{12}\.json$/);
  });
});

describe("search and the month index", () => {
  it("filters by status, dates and text, pages newest first, and counts by status", async () => {
    const a = await storeBrief(store, {
      receivedAt: "2026-01-05T10:00:00.000Z",
      fields: { name: "Grace Hopper", email: "grace@navy.example" },
    });
    const b = await storeBrief(store, {
      receivedAt: "2026-02-10T10:00:00.000Z",
      fields: { description: "A COBOL compiler for the fleet, with manuals." },
    });
    const c = await storeBrief(store, { receivedAt: "2026-03-15T10:00:00.000Z" });
    await setStatus(store, b.folder, "handled", "ops", now);

    const all = await searchBriefs(store, "briefs", NO_FILTER, { now });
    expect(all.briefs.map((brief) => brief.reference)).toEqual([c, b, a].map((x) => x.record.reference));
    expect(all.counts).toEqual({ new: 2, handled: 1, archived: 0 });

    const handled = await searchBriefs(store, "briefs", parseFilter({ status: "handled" }), { now });
    expect(handled.briefs.map((brief) => brief.reference)).toEqual([b.record.reference]);
    expect(handled.counts).toEqual({ new: 2, handled: 1, archived: 0 });

    const cobol = await searchBriefs(store, "briefs", parseFilter({ q: "cobol" }), { now });
    expect(cobol.briefs.map((brief) => brief.reference)).toEqual([b.record.reference]);
    const byReference = a.record.reference.replaceAll("-", "").toLowerCase();
    expect((await searchBriefs(store, "briefs", parseFilter({ q: byReference }), { now })).total).toBe(1);
    expect((await searchBriefs(store, "briefs", parseFilter({ q: "GRACE@NAVY" }), { now })).total).toBe(1);

    const february = await searchBriefs(
      store,
      "briefs",
      parseFilter({ from: "2026-02-01", to: "2026-02-28" }),
      {
        now,
      },
    );
    expect(february.briefs.map((brief) => brief.reference)).toEqual([b.record.reference]);

    const paged = await searchBriefs(store, "briefs", NO_FILTER, { now, pageSize: 2, page: 2 });
    expect(paged).toMatchObject({ page: 2, pages: 2, total: 3 });
    expect(paged.briefs.map((brief) => brief.reference)).toEqual([a.record.reference]);
  });
});

describe("erase", () => {
  it("removes every file of the address's briefs and spam, its subscriber record, and its index entries", async () => {
    const pdf = Buffer.from("%PDF-1.7\n%%EOF\n");
    const mine = await storeBrief(store, {
      receivedAt: "2026-03-03T10:00:00.000Z",
      fields: { email: "Erase.Me@Example.com", name: "Erin Erase" },
      attachment: attachmentFor(pdf, "cv.pdf", "application/pdf", "pdf"),
      delivery: {},
    });
    await setStatus(store, mine.folder, "handled", "ops", now);
    const caught = await storeBrief(store, {
      receivedAt: "2026-02-03T10:00:00.000Z",
      folder: "spam",
      fields: { email: "erase.me@example.com" },
    });
    const other = await storeBrief(store, { receivedAt: "2026-03-04T10:00:00.000Z" });
    await subscribe(store, { email: "erase.me@EXAMPLE.com", topics: [] }, now);
    await searchBriefs(store, "briefs", NO_FILTER, { now }); // builds the index

    const plan = await planErase(store, "erase.me@example.com", { now });
    expect(plan).toMatchObject({ briefs: [mine.folder], spam: [caught.folder], subscriber: true });
    const result = await erase(store, plan);
    expect(result).toMatchObject({ briefs: 1, spam: 1, subscribers: 1 });
    expect(result.emailSha256).toMatch(/^[0-9a-f]{64}$/);

    const left: string[] = [];
    for await (const info of store.list("")) left.push(info.path);
    expect(left.filter((path) => path.includes(mine.record.reference))).toEqual([]);
    expect(left.filter((path) => path.includes(caught.record.reference))).toEqual([]);
    expect(left.some((path) => path.startsWith("newsletter/"))).toBe(false);
    expect(left).toContain(`${other.folder}/brief.json`);
    for (const path of left) {
      const bytes = await store.get(path);
      expect(
        Buffer.from(bytes ?? [])
          .toString("utf8")
          .toLowerCase(),
      ).not.toContain("erase.me");
    }
    expect((await searchBriefs(store, "briefs", parseFilter({ q: "erase.me" }), { now })).total).toBe(0);
  });
});
