import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import type { ObjectInfo, ObjectStore } from "@/lib/store/types";
import type { ChannelDelivery, Delivery } from "@/lib/briefs";
import { UsageError } from "@/lib/ops-cli/errors";
import { type Invocation, parseInvocation } from "@/lib/ops-cli/invocation";
import { clip, printable, wrap } from "@/lib/ops-cli/text";
import { csvCell, csvRecord } from "@/lib/ops/csv";
import { InboxRecordError } from "@/lib/ops/errors";
import { deliveryStatus } from "@/lib/ops/labels";
import { findBrief } from "@/lib/ops/find";
import { readBriefs } from "@/lib/ops/reader";
import { parseBriefRecord, parseDelivery, type StoredBrief } from "@/lib/ops/records";
import { NEW_STATE } from "@/lib/ops/state";
import {
  acknowledgmentFailed,
  needsRedelivery,
  PENDING_GRACE_MS,
  planRedelivery,
  stillFailing,
} from "@/lib/ops/redeliver";
import { parseCsv } from "../support/csv";
import { storeBrief } from "../support/ops";

describe("csvCell", () => {
  it.each<[string | number | null, string]>([
    ["plain", "plain"],
    ["", ""],
    [null, ""],
    [1234, "1234"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ["line\nbreak", '"line\nbreak"'],
    ["cr\rlf", '"cr\rlf"'],
    ["crlf\r\n", '"crlf\r\n"'],
    ["=1+1", "'=1+1"],
    ["+33 1 23 45", "'+33 1 23 45"],
    ["-5", "'-5"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", '"\'\r=1"'],
    ['=HYPERLINK("x","y")', '"\'=HYPERLINK(""x"",""y"")"'],
    ["a=1", "a=1"],
    [" =1", " =1"],
    ["'quoted already", "'quoted already"],
    ["Ada \u202eFDP.exe", "Ada <U+202E>FDP.exe"],
    ["\u2067x\u2069\u200e\u200f\u061c", "<U+2067>x<U+2069><U+200E><U+200F><U+061C>"],
  ])("%j -> %j", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it("records end in CRLF and read back through an RFC 4180 reader", () => {
    const values = ["a", 'b "c"', "d,e", "f\ng", ""];
    const text = csvRecord(values) + csvRecord(["x", "y", "z", "w", "v"]);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(parseCsv(text)).toEqual([values, ["x", "y", "z", "w", "v"]]);
  });
});

describe("terminal text", () => {
  it("printable drops control characters, shows bidi controls as code points and flattens tabs and newlines", () => {
    expect(printable("a\u001b[31mred\u001b[0m\u0007b")).toBe("a[31mred[0mb");
    expect(printable("x\ty\nz")).toBe("x y z");
    expect(printable("cod\u202egpj.exe\u0085")).toBe("cod<U+202E>gpj.exe");
    expect(printable("\u2066a\u2069\u200e\u200f\u061c")).toBe("<U+2066>a<U+2069><U+200E><U+200F><U+061C>");
    expect(printable("Zoë ✓ 日本")).toBe("Zoë ✓ 日本");
  });

  it("clip counts code points and marks a cut with …", () => {
    expect(clip("short", 10)).toBe("short");
    expect(clip("exactly10!", 10)).toBe("exactly10!");
    expect(clip("one too long", 11)).toBe("one too lo…");
    expect(clip("😀😀😀😀", 3)).toBe("😀😀…");
  });

  it.each<[string, number, string[]]>([
    ["one two three four", 9, ["one two", "three", "four"]],
    ["keeps\n\nparagraphs", 20, ["keeps", "", "paragraphs"]],
    ["crlf\r\nand cr\rtoo", 20, ["crlf", "and cr", "too"]],
    ["a https://example.com/very/long/path b", 10, ["a", "https://example.com/very/long/path", "b"]],
    ["\tindented", 20, ["    indented"]],
    ["no escape \u001b[2J here", 40, ["no escape [2J here"]],
  ])("wrap(%j, %i)", (text, width, expected) => {
    expect(wrap(text, width)).toEqual(expected);
  });
});

const base: StoredBrief = {
  kind: "briefs",
  state: NEW_STATE,
  folder: "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC",
  record: {
    reference: "K7QM-3XD9-PTWA-84HC",
    receivedAt: "2026-11-22T10:00:00.000Z",
    name: "Ada",
    email: "ada@example.com",
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "asap",
    description: "x".repeat(40),
    consent: true,
    attachment: null,
    verification: "passed",
    attribution: null,
    client: { ipHash: null, userAgent: null, origin: null },
  },
  delivery: null,
};

const ok: ChannelDelivery = {
  state: "delivered",
  ok: true,
  at: "2026-11-22T10:00:01.000Z",
  attempts: 1,
  log: [],
};
const failed: ChannelDelivery = {
  state: "failed",
  ok: false,
  at: "2026-11-22T10:00:05.000Z",
  attempts: 1,
  error: "answered HTTP 500",
  log: [],
};

describe("deliveryStatus", () => {
  it.each<[StoredBrief["kind"], Delivery | null, string]>([
    ["briefs", null, "pending"],
    ["briefs", {}, "none configured"],
    ["briefs", { webhook: ok }, "webhook ✓"],
    ["briefs", { email: failed }, "email ✗"],
    ["briefs", { email: failed, webhook: ok }, "webhook ✓ email ✗"],
    ["spam", null, "not sent (spam)"],
  ])("%s %j -> %s", (kind, delivery, expected) => {
    expect(deliveryStatus({ kind, delivery })).toBe(expected);
  });
});

describe("planRedelivery", () => {
  const now = new Date("2026-11-22T12:00:00.000Z");
  const plan = (delivery: Delivery | null, configured: ("webhook" | "email")[], receivedAt?: string) =>
    planRedelivery(
      { ...base, delivery, record: { ...base.record, receivedAt: receivedAt ?? base.record.receivedAt } },
      configured,
      5_000,
      now,
    );

  it.each<[string, Delivery | null, ("webhook" | "email")[], string[], string[]]>([
    ["a failed webhook is retried", { webhook: failed, email: ok }, ["webhook", "email"], ["webhook"], []],
    [
      "both failed, both retried",
      { webhook: failed, email: failed },
      ["webhook", "email"],
      ["webhook", "email"],
      [],
    ],
    ["nothing failed, nothing sent", { webhook: ok, email: ok }, ["webhook", "email"], [], []],
    ["a channel added since is not sent", { webhook: ok }, ["webhook", "email"], [], []],
    ["none configured then, none now", {}, ["webhook", "email"], [], []],
    ["a failed channel not configured here", { webhook: ok, email: failed }, ["webhook"], [], ["email"]],
    ["no record at all: every configured channel", null, ["webhook", "email"], ["webhook", "email"], []],
  ])("%s", (_, delivery, configured, retry, unavailable) => {
    expect(plan(delivery, configured)).toEqual({ retry, unavailable, waiting: null });
  });

  it("leaves a brief without a record alone while its notifications may still be running", () => {
    const recent = new Date(now.getTime() - 5_000 - PENDING_GRACE_MS + 1_000).toISOString();
    expect(plan(null, ["webhook"], recent)).toEqual({
      retry: [],
      unavailable: [],
      waiting: expect.stringContaining("may still be running"),
    });
    const old = new Date(now.getTime() - 5_000 - PENDING_GRACE_MS - 1_000).toISOString();
    expect(plan(null, ["webhook"], old).retry).toEqual(["webhook"]);
  });

  it("needsRedelivery and stillFailing", () => {
    expect(needsRedelivery(null)).toBe(true);
    expect(needsRedelivery({})).toBe(false);
    expect(needsRedelivery({ webhook: ok })).toBe(false);
    expect(needsRedelivery({ webhook: ok, email: failed })).toBe(true);
    const result = {
      reference: "K7QM-3XD9-PTWA-84HC",
      attempted: {},
      acknowledgmentUnavailable: false,
      unavailable: [],
      error: null,
      waiting: null,
      delivery: { webhook: ok },
    };
    expect(stillFailing(result)).toBe(false);
    expect(stillFailing({ ...result, acknowledgmentUnavailable: true })).toBe(true);
    expect(stillFailing({ ...result, delivery: { webhook: failed } })).toBe(true);
    expect(stillFailing({ ...result, unavailable: ["email"] })).toBe(true);
    expect(stillFailing({ ...result, error: "x" })).toBe(true);
    expect(stillFailing({ ...result, delivery: null, waiting: "soon" })).toBe(false);
  });
});

describe("the acknowledgment in redeliver", () => {
  const ok: ChannelDelivery = {
    state: "delivered",
    ok: true,
    at: "2026-11-22T10:00:00.000Z",
    attempts: 1,
    log: [],
  };
  const failed: ChannelDelivery = {
    state: "failed",
    ok: false,
    at: "2026-11-22T10:00:00.000Z",
    attempts: 1,
    error: "x",
    log: [],
  };
  const suppressed = { ...failed, suppressed: true as const };

  it.each<[string, Delivery | null, boolean]>([
    ["no record", null, false],
    ["not on when the brief came", { webhook: ok }, false],
    ["sent", { acknowledgment: ok }, false],
    ["suppressed", { acknowledgment: suppressed }, false],
    ["failed", { acknowledgment: failed }, true],
  ])("acknowledgmentFailed: %s", (_label, delivery, expected) => {
    expect(acknowledgmentFailed(delivery)).toBe(expected);
  });

  it("is looked at only with --acknowledgment", () => {
    expect(needsRedelivery({ webhook: ok, acknowledgment: failed })).toBe(false);
    expect(needsRedelivery({ webhook: ok, acknowledgment: failed }, { acknowledgment: true })).toBe(true);
    expect(needsRedelivery({ webhook: ok, acknowledgment: suppressed }, { acknowledgment: true })).toBe(
      false,
    );
    const result = {
      reference: "K7QM-3XD9-PTWA-84HC",
      attempted: {},
      acknowledgmentUnavailable: false,
      unavailable: [],
      error: null,
      waiting: null,
      delivery: { webhook: ok, acknowledgment: failed },
    };
    expect(stillFailing(result)).toBe(false);
    expect(stillFailing(result, { acknowledgment: true })).toBe(true);
  });

  it("parses --acknowledgment", () => {
    expect(parseInvocation(["redeliver", "--failed", "--acknowledgment"])).toMatchObject({
      failed: true,
      acknowledgment: true,
    });
    expect(parseInvocation(["redeliver", "--failed"])).toMatchObject({ acknowledgment: false });
  });
});

describe("parseInvocation", () => {
  it.each<[string[], Partial<Invocation>]>([
    [["list"], { command: "list", since: null, json: false, delivery: null }],
    [["list", "--delivery", "failed"], { command: "list", delivery: "failed" }],
    [["list", "--delivery=retrying", "--json"], { delivery: "retrying", json: true }],
    [["list", "--since", "2026-02-28", "--json"], { command: "list", since: "2026-02-28", json: true }],
    [["spam", "--json"], { command: "spam", json: true }],
    [["show", "k7qm3xd9ptwa84hc"], { command: "show", reference: "K7QM-3XD9-PTWA-84HC" }],
    [["show", "K7QM 3XD9 PTWA 84HC"], { reference: "K7QM-3XD9-PTWA-84HC" }],
    [["attachment", "K7QM-3XD9-PTWA-84HC", "--out", "x.pdf", "--force"], { out: "x.pdf", force: true }],
    [["export", "--format", "csv", "--out=all.csv"], { command: "export", format: "csv", out: "all.csv" }],
    [["export", "--format", "json", "--since", "2024-02-29"], { format: "json", since: "2024-02-29" }],
    [["subscribers", "--csv"], { command: "subscribers", csv: true, json: false, status: "confirmed" }],
    [["subscribers", "--status", "pending"], { command: "subscribers", status: "pending" }],
    [["subscribers", "--status=all", "--json"], { command: "subscribers", status: "all", json: true }],
    [["redeliver", "--failed"], { command: "redeliver", failed: true, reference: null }],
    [["redeliver", "--failed", "--since", "2026-01-01"], { failed: true, since: "2026-01-01" }],
    [["redeliver", "k7qm-3xd9-ptwa-84hc"], { reference: "K7QM-3XD9-PTWA-84HC", failed: false }],
    [["gc"], { command: "gc", dryRun: false }],
    [["gc", "--dry-run"], { command: "gc", dryRun: true }],
    [
      ["person", " Ada@Example.com "],
      { command: "person", address: "Ada@Example.com", erase: false, reference: null },
    ],
    [["person", "ada@example.com", "--erase", "--by", "dpo"], { command: "person", erase: true, by: "dpo" }],
    [
      ["status", "k7qm3xd9ptwa84hc", "handled"],
      { command: "status", reference: "K7QM-3XD9-PTWA-84HC", briefStatus: "handled", by: null },
    ],
    [
      ["status", "K7QM-3XD9-PTWA-84HC", "new", "--by", " ada@studio.example "],
      { briefStatus: "new", by: "ada@studio.example" },
    ],
    [["note", "K7QM-3XD9-PTWA-84HC", "Called back."], { command: "note", text: "Called back." }],
    [
      ["erase", "Gone@Client.example"],
      { command: "erase", address: "Gone@Client.example", confirm: null, reference: null },
    ],
    [
      ["erase", "gone@client.example", "--confirm", "gone@client.example"],
      { confirm: "gone@client.example" },
    ],
    [["audit"], { command: "audit", limit: 200, json: false }],
    [["audit", "--limit", "20", "--json"], { command: "audit", limit: 20, json: true }],
  ])("%j", (argv, expected) => {
    expect(parseInvocation(argv)).toMatchObject(expected);
  });

  it.each([[["--help"]], [["-h"]], [["help"]], [["export", "--help"]], [["frobnicate", "-h"]]])(
    "%j asks for help",
    (argv) => {
      expect(parseInvocation(argv)).toBe("help");
    },
  );

  it.each<[string[], RegExp]>([
    [[], /no command/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["--json"], /unknown command "--json"/],
    [["list", "--bogus"], /Unknown option '--bogus'/],
    [["list", "extra"], /unexpected argument "extra"/],
    [["list", "--csv"], /Unknown option '--csv'/],
    [["list", "--since"], /argument missing/],
    [["list", "--since", "2026-2-1"], /YYYY-MM-DD/],
    [["list", "--since", "2026-02-29"], /YYYY-MM-DD/],
    [["list", "--since", "yesterday"], /YYYY-MM-DD/],
    [["list", "--json=yes"], /does not take an argument/],
    [["list", "--delivery", "delivered"], /--delivery takes retrying or failed, got "delivered"/],
    [["list", "--delivery"], /argument missing/],
    [["spam", "--delivery", "failed"], /Unknown option '--delivery'/],
    [["show"], /reference is required/],
    [["show", "K7QM-3XD9-PTWA-84H"], /is not a brief reference/],
    [["show", "K7QM-3XD9-PTWA-84H0"], /is not a brief reference/],
    [["show", "a", "b"], /unexpected argument "b"/],
    [["attachment"], /reference is required/],
    [["attachment", "K7QM-3XD9-PTWA-84HC", "--out", ""], /--out needs a path/],
    [["export"], /--format csv or --format json/],
    [["export", "--format", "xml"], /unknown format "xml"/],
    [["subscribers", "--json", "--csv"], /not both/],
    [["subscribers", "--status", "Confirmed"], /--status takes pending, confirmed, unsubscribed or all/],
    [["subscribers", "--status"], /argument missing/],
    [["redeliver"], /a reference or --failed/],
    [["redeliver", "K7QM-3XD9-PTWA-84HC", "--failed"], /a reference or --failed/],
    [["redeliver", "K7QM-3XD9-PTWA-84HC", "--since", "2026-01-01"], /--since goes with redeliver --failed/],
    [["gc", "--since", "2026-01-01"], /Unknown option '--since'/],
    [["status", "K7QM-3XD9-PTWA-84HC"], /status takes a brief reference and new, handled or archived/],
    [["status", "K7QM-3XD9-PTWA-84HC", "done"], /status takes new, handled, archived, got "done"/],
    [["note", "K7QM-3XD9-PTWA-84HC"], /note takes a brief reference and the note's text/],
    [["note", "K7QM-3XD9-PTWA-84HC", "  "], /Write the note first/],
    [["erase"], /erase takes an email address/],
    [["erase", "not-an-address"], /erase takes an email address/],
    [["person"], /person takes an email address/],
    [["person", "K7QM-3XD9-PTWA-84HC"], /person takes an email address/],
    [["person", "ada@example.com", "--confirm", "ada@example.com"], /Unknown option '--confirm'/],
    [["audit", "--limit", "0"], /--limit takes a whole number/],
    [["status", "K7QM-3XD9-PTWA-84HC", "new", "--by", ""], /--by takes a name or an address/],
    [["gc", "staging/x"], /unexpected argument "staging\/x"/],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseInvocation(argv)).toThrow(UsageError);
    expect(() => parseInvocation(argv)).toThrow(message);
  });
});

describe("records read from the inbox", () => {
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

  it("a brief record is checked, and its attachment cannot point outside its folder", () => {
    const attachment = {
      filename: "attachment.pdf",
      originalName: "x.pdf",
      contentType: "application/pdf",
      size: 1,
      sha256: "a".repeat(64),
    };
    const record = { ...base.record, attachment };
    expect(parseBriefRecord("p", bytes(record))).toEqual(record);
    for (const filename of ["../brief.json", "../../../etc/passwd", "attachment.pdf/x", "brief.json"]) {
      expect(() =>
        parseBriefRecord("p", bytes({ ...record, attachment: { ...attachment, filename } })),
      ).toThrow(InboxRecordError);
    }
    expect(() => parseBriefRecord("p", bytes({ ...record, receivedAt: "yesterday" }))).toThrow(/receivedAt/);
    expect(() => parseBriefRecord("p", bytes({ ...record, name: 7 }))).toThrow(/\(name\)/);
    expect(() => parseBriefRecord("p/brief.json", new TextEncoder().encode("{"))).toThrow(
      "p/brief.json is not valid JSON",
    );
  });

  it("a delivery record keeps the known channels and refuses malformed outcomes", () => {
    expect(parseDelivery("d", bytes({ webhook: ok, email: failed, pager: ok }))).toEqual({
      webhook: ok,
      email: failed,
    });
    expect(parseDelivery("d", bytes({}))).toEqual({});
    expect(() => parseDelivery("d", bytes([]))).toThrow(InboxRecordError);
    expect(() => parseDelivery("d", bytes({ webhook: { ok: "yes", at: "x" } }))).toThrow(InboxRecordError);
  });
});

/** Records every prefix listed and every path read, to check how much of the store a command touches. */
class WatchedStore implements ObjectStore {
  readonly driver = "filesystem";
  readonly listed: string[] = [];
  readonly read: string[] = [];

  constructor(private readonly inner: ObjectStore) {}

  put(...args: Parameters<ObjectStore["put"]>) {
    return this.inner.put(...args);
  }
  create(...args: Parameters<ObjectStore["create"]>) {
    return this.inner.create(...args);
  }
  beginUpload() {
    return this.inner.beginUpload();
  }
  removeAbandonedUploads(...args: Parameters<ObjectStore["removeAbandonedUploads"]>) {
    return this.inner.removeAbandonedUploads(...args);
  }
  putAll(...args: Parameters<ObjectStore["putAll"]>) {
    return this.inner.putAll(...args);
  }
  copy(...args: Parameters<ObjectStore["copy"]>) {
    return this.inner.copy(...args);
  }
  delete(...args: Parameters<ObjectStore["delete"]>) {
    return this.inner.delete(...args);
  }
  get(path: string) {
    this.read.push(path);
    return this.inner.get(path);
  }
  getStream(path: string) {
    this.read.push(path);
    return this.inner.getStream(path);
  }
  getVersioned(path: string) {
    this.read.push(path);
    return this.inner.getVersioned(path);
  }
  putIfVersion(...args: Parameters<ObjectStore["putIfVersion"]>) {
    return this.inner.putIfVersion(...args);
  }
  deleteIfVersion(...args: Parameters<ObjectStore["deleteIfVersion"]>) {
    return this.inner.deleteIfVersion(...args);
  }
  list(prefix: string): AsyncIterable<ObjectInfo> {
    this.listed.push(prefix);
    return this.inner.list(prefix);
  }
}

describe("readBriefs and findBrief", () => {
  let dir: string;
  let store: WatchedStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ops-reader-"));
    store = new WatchedStore(new FilesystemStore(dir));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function collect(iterable: AsyncIterable<StoredBrief>): Promise<StoredBrief[]> {
    const found: StoredBrief[] = [];
    for await (const brief of iterable) found.push(brief);
    return found;
  }

  it("lists month by month from the newest, and with --since reads nothing older", async () => {
    const now = new Date("2026-03-15T12:00:00.000Z");
    const jan = await storeBrief(store, { receivedAt: "2026-01-20T10:00:00.000Z" });
    const feb = await storeBrief(store, { receivedAt: "2026-02-10T10:00:00.000Z" });
    const mar = await storeBrief(store, { receivedAt: "2026-03-01T10:00:00.000Z" });
    await storeBrief(store, { receivedAt: "2025-11-30T10:00:00.000Z" });

    store.listed.length = 0;
    const all = await collect(readBriefs(store, "briefs", { now }));
    expect(all.map((brief) => brief.record.receivedAt.slice(0, 7))).toEqual([
      "2026-03",
      "2026-02",
      "2026-01",
      "2025-11",
    ]);
    // A probe for the oldest, one for anything dated next year, then one listing per month from
    // December of this year down.
    const months = (from: number, to: number, year: number) =>
      Array.from({ length: from - to + 1 }, (_, i) => `briefs/${year}/${String(from - i).padStart(2, "0")}/`);
    expect(store.listed).toEqual([
      "briefs/",
      "briefs/2027/",
      ...months(12, 1, 2026),
      ...months(12, 11, 2025),
    ]);

    store.listed.length = 0;
    store.read.length = 0;
    const since = await collect(readBriefs(store, "briefs", { now, since: "2026-02-10" }));
    expect(since.map((brief) => brief.record.reference)).toEqual([
      mar.record.reference,
      feb.record.reference,
    ]);
    expect(store.listed).toEqual(["briefs/2027/", ...months(12, 2, 2026)]);
    expect(store.read.some((path) => path.includes(jan.record.reference))).toBe(false);

    // Stopping early (a reader that has seen enough) lists no further months.
    store.listed.length = 0;
    for await (const brief of readBriefs(store, "briefs", { now })) {
      expect(brief.record.reference).toBe(mar.record.reference);
      break;
    }
    expect(store.listed).toEqual(["briefs/", "briefs/2027/", ...months(12, 3, 2026)]);
  });

  it("finds briefs dated ahead of this machine's clock, by a month or by years", async () => {
    const dates = ["2028-02-01T10:00:00.000Z", "2027-06-01T10:00:00.000Z", "2026-12-01T10:00:00.000Z"];
    const stored = [];
    for (const receivedAt of [...dates, "2026-01-01T10:00:00.000Z"])
      stored.push(await storeBrief(store, { receivedAt }));
    const expected = stored.map((brief) => brief.record.reference);
    for (const now of ["2026-01-15T00:00:00Z", "2001-01-01T00:00:00Z", "2030-01-01T00:00:00Z"]) {
      const found = await collect(readBriefs(store, "briefs", { now: new Date(now) }));
      expect(found.map((brief) => brief.record.reference)).toEqual(expected);
      expect((await findBrief(store, expected[0] ?? "", new Date(now)))?.record.reference).toBe(expected[0]);
    }
  });

  it("reports a record that is not a brief, and one filed under another reference, and goes on", async () => {
    const good = await storeBrief(store, { receivedAt: "2026-01-02T10:00:00.000Z" });
    const other = await storeBrief(store, { receivedAt: "2026-01-03T10:00:00.000Z" });
    await store.put("briefs/2026/01/02/BAD2-BAD2-BAD2-BAD2/brief.json", "[]", "application/json");
    const moved = await store.get(`${other.folder}/brief.json`);
    await store.put("briefs/2026/01/03/MVED-MVED-MVED-MVED/brief.json", moved ?? "", "application/json");
    const problems: string[] = [];
    const found = await collect(
      readBriefs(store, "briefs", {
        now: new Date("2026-01-05T00:00:00Z"),
        onProblem: (p) => problems.push(p.message),
      }),
    );
    expect(found.map((brief) => brief.record.reference)).toEqual([
      other.record.reference,
      good.record.reference,
    ]);
    expect(problems.sort()).toEqual([
      "briefs/2026/01/02/BAD2-BAD2-BAD2-BAD2/brief.json is not a brief record",
      `briefs/2026/01/03/MVED-MVED-MVED-MVED/brief.json holds brief ${other.record.reference}, not MVED-MVED-MVED-MVED`,
    ]);
  });

  it("select reads delivery.json first and skips brief.json when it says no", async () => {
    const delivered = await storeBrief(store, {
      receivedAt: "2026-01-02T10:00:00.000Z",
      delivery: { webhook: ok },
    });
    const failing = await storeBrief(store, {
      receivedAt: "2026-01-02T11:00:00.000Z",
      delivery: { webhook: failed },
    });
    store.read.length = 0;
    const found = await collect(
      readBriefs(store, "briefs", { now: new Date("2026-01-05T00:00:00Z"), select: needsRedelivery }),
    );
    expect(found.map((brief) => brief.record.reference)).toEqual([failing.record.reference]);
    expect(store.read).not.toContain(`${delivered.folder}/brief.json`);
    expect(store.read).toContain(`${delivered.folder}/delivery.json`);
  });

  it("findBrief finds briefs and honeypot catches, and answers null for an unknown reference", async () => {
    const brief = await storeBrief(store, { receivedAt: "2025-06-01T10:00:00.000Z" });
    const caught = await storeBrief(store, { receivedAt: "2025-06-02T10:00:00.000Z", folder: "spam" });
    const now = new Date("2025-06-10T00:00:00Z");
    expect((await findBrief(store, brief.record.reference, now))?.folder).toBe(brief.folder);
    const found = await findBrief(store, caught.record.reference, now);
    expect(found?.kind).toBe("spam");
    expect(found?.folder).toBe(caught.folder);
    expect(await findBrief(store, "K7QM-3XD9-PTWA-84HC", now)).toBeNull();
  });
});
