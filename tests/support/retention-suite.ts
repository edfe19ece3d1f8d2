import { describe, expect, it } from "vitest";
import { subscribe, subscriberPath } from "@/lib/newsletter";
import { readAudit } from "@/lib/ops";
import type { ObjectStore } from "@/lib/store";
import { makePdf } from "./files";
import type { InboxBackend, TestInbox } from "./inbox-tool-suite";
import { attachmentFor, runInbox, storeBrief } from "./ops";

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

/** Every object path under `prefix`. */
async function pathsUnder(store: ObjectStore, prefix: string): Promise<string[]> {
  const paths: string[] = [];
  for await (const info of store.list(prefix)) paths.push(info.path);
  return paths;
}

/** The references `list --json` (or `spam --json`) shows. */
async function listed(inbox: TestInbox, command: "list" | "spam", env: Record<string, string> = {}) {
  const run = await runInbox([command, "--json"], { env: { ...inbox.env, ...env } });
  expect(run.stderr).toBe("");
  return (JSON.parse(run.stdout) as { reference: string }[]).map((brief) => brief.reference).sort();
}

/**
 * Retention and a person's data, through the ops tool as a real process against an inbox on
 * `backend`, filled by the service's own `saveBrief` and `subscribe`.
 */
export function describeRetentionAndPersonData(backend: InboxBackend): void {
  describe(`retention and a person's data on the ${backend.name} driver`, () => {
    async function withInbox(test: (inbox: TestInbox) => Promise<void>): Promise<void> {
      const inbox = await backend.open();
      try {
        await test(inbox);
      } finally {
        await inbox.close();
      }
    }

    it("gc erases briefs and spam past RETENTION_DAYS, every file, with one audit entry; pending subscriptions go after 7 days whatever the setting", () =>
      withInbox(async (inbox) => {
        const { store } = inbox;
        const pdf = makePdf("old plan");
        const old = await storeBrief(store, {
          receivedAt: daysAgo(400).toISOString(),
          attachment: attachmentFor(pdf, "plan.pdf", "application/pdf", "pdf"),
          delivery: { webhook: { ok: true, at: daysAgo(400).toISOString() } },
        });
        await store.put(
          `${old.folder}/state.json`,
          '{"status":"handled","notes":[],"history":[]}\n',
          "application/json",
        );
        const justPast = await storeBrief(store, { receivedAt: daysAgo(30.5).toISOString() });
        const kept = await storeBrief(store, { receivedAt: daysAgo(29.5).toISOString() });
        const oldSpam = await storeBrief(store, { receivedAt: daysAgo(90).toISOString(), folder: "spam" });
        const newSpam = await storeBrief(store, { receivedAt: daysAgo(1).toISOString(), folder: "spam" });
        const stalePending = "stale@example.com";
        const freshPending = "fresh@example.com";
        const oldConfirmed = "loyal@example.com";
        await subscribe(store, { email: stalePending, topics: [] }, daysAgo(8), undefined, {
          doubleOptIn: true,
        });
        await subscribe(store, { email: freshPending, topics: [] }, daysAgo(2), undefined, {
          doubleOptIn: true,
        });
        await subscribe(store, { email: oldConfirmed, topics: [] }, daysAgo(400));
        // The lists build their month indexes now, so gc has to keep them right.
        expect(await listed(inbox, "list")).toEqual(
          [old, justPast, kept].map((brief) => brief.record.reference).sort(),
        );

        // Unset: briefs are kept forever; the stale pending subscription goes all the same.
        const forever = await runInbox(["gc"], { env: inbox.env });
        expect(forever.code).toBe(0);
        expect(forever.stdout).toContain("Briefs and spam are kept forever (RETENTION_DAYS is not set)");
        expect(forever.stdout).toContain(`erased  ${subscriberPath(stalePending)}`);
        expect(await store.get(subscriberPath(stalePending))).toBeNull();
        expect(await store.get(subscriberPath(freshPending))).not.toBeNull();
        expect(await store.get(subscriberPath(oldConfirmed))).not.toBeNull();
        expect(await pathsUnder(store, old.folder)).not.toEqual([]);
        expect(await readAudit(store)).toEqual([]);

        const env = { ...inbox.env, RETENTION_DAYS: "30" };
        const dry = await runInbox(["gc", "--dry-run"], { env });
        expect(dry.stdout).toContain(`would erase  ${old.folder}`);
        expect(dry.stdout).toContain("2 briefs and 1 spam entry older than 30 days would be erased");
        expect(await pathsUnder(store, old.folder)).toHaveLength(4);

        const gc = await runInbox(["gc"], { env });
        expect(gc.stderr).toBe("");
        expect(gc.code).toBe(0);
        expect(gc.stdout).toContain(`erased  ${old.folder}`);
        expect(gc.stdout).toContain(`erased  ${oldSpam.folder}`);
        expect(gc.stdout).toContain("2 briefs and 1 spam entry older than 30 days erased");
        for (const folder of [old.folder, justPast.folder, oldSpam.folder]) {
          expect(await pathsUnder(store, `${folder}/`)).toEqual([]);
        }
        expect(await pathsUnder(store, `${kept.folder}/`)).toContain(`${kept.folder}/brief.json`);
        expect(await pathsUnder(store, `${newSpam.folder}/`)).toContain(`${newSpam.folder}/brief.json`);
        expect(await listed(inbox, "list")).toEqual([kept.record.reference]);
        expect(await listed(inbox, "spam")).toEqual([newSpam.record.reference]);
        // The month indexes no longer hold the erased briefs' text.
        for (const path of await pathsUnder(store, "index/")) {
          const text = Buffer.from((await store.get(path)) ?? new Uint8Array()).toString("utf8");
          expect(text).not.toContain(old.record.reference);
          expect(text).not.toContain(justPast.record.reference);
        }
        const audit = await readAudit(store);
        expect(audit).toEqual([
          {
            at: expect.any(String),
            actor: expect.stringMatching(/^ops-tool:/),
            action: "retention",
            target: "2 briefs, 1 spam",
          },
        ]);
        expect(await store.get(subscriberPath(oldConfirmed))).not.toBeNull();

        // Nothing more to erase: no second entry.
        const again = await runInbox(["gc"], { env });
        expect(again.stdout).toContain("0 briefs and 0 spam entries older than 30 days erased");
        expect(await readAudit(store)).toHaveLength(1);
      }));

    it("a malformed RETENTION_DAYS stops the tool, naming it", () =>
      withInbox(async (inbox) => {
        const run = await runInbox(["gc"], { env: { ...inbox.env, RETENTION_DAYS: "a month" } });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("RETENTION_DAYS");
      }));

    it("person prints what the inbox holds about an address as JSON, audited by its hash; --erase then erases it", () =>
      withInbox(async (inbox) => {
        const { store } = inbox;
        const pdf = makePdf("Ada's plan");
        const brief = await storeBrief(store, {
          fields: { email: "Ada@Example.com" },
          attachment: attachmentFor(pdf, "plan.pdf", "application/pdf", "pdf"),
          delivery: { email: { ok: false, at: new Date().toISOString(), error: "refused" } },
        });
        const spam = await storeBrief(store, { folder: "spam" });
        const other = await storeBrief(store, { fields: { email: "grace@example.com" } });
        await subscribe(store, {
          email: "ada@example.com",
          topics: ["AI"],
          page: "/journal",
          ipHash: "c".repeat(64),
        });

        const run = await runInbox(["person", "ADA@example.com", "--by", "dpo@studio.example"], {
          env: inbox.env,
        });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const data = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(data).toEqual({
          address: "ADA@example.com",
          generatedAt: expect.any(String),
          briefs: [
            { brief: brief.record, state: null, delivery: { email: expect.objectContaining({ ok: false }) } },
          ],
          spam: [{ brief: spam.record, state: null, delivery: null }],
          subscriber: expect.objectContaining({
            email: "ada@example.com",
            status: "confirmed",
            consent: expect.objectContaining({ method: "single", page: "/journal", ipHash: "c".repeat(64) }),
          }),
        });
        // The attachment by name, size and hash; never its bytes.
        expect(run.stdout).toContain(brief.record.attachment?.sha256 ?? "no attachment");
        expect(run.stdout).not.toContain(Buffer.from(pdf).toString("base64").slice(0, 40));
        expect(run.stdout).not.toContain("revision");
        const [entry] = await readAudit(store);
        expect(entry).toMatchObject({
          actor: "dpo@studio.example",
          action: "export-person",
          target: { briefs: 1, spam: 1, subscribers: 1 },
        });
        expect(JSON.stringify(entry)).not.toMatch(/ada@example\.com/i);

        const erased = await runInbox(["person", "ada@example.com", "--erase"], { env: inbox.env });
        expect(erased.code).toBe(0);
        expect((JSON.parse(erased.stdout) as { briefs: unknown[] }).briefs).toHaveLength(1);
        expect(erased.stderr).toContain("Erased 1 briefs, 1 spam entries and 1 subscriber records");
        expect(await pathsUnder(store, `${brief.folder}/`)).toEqual([]);
        expect(await pathsUnder(store, `${spam.folder}/`)).toEqual([]);
        expect(await store.get(subscriberPath("ada@example.com"))).toBeNull();
        expect(await pathsUnder(store, `${other.folder}/`)).not.toEqual([]);
        expect((await readAudit(store)).map((audited) => audited.action).sort()).toEqual([
          "erase",
          "export-person",
          "export-person",
        ]);

        const nothing = await runInbox(["person", "ada@example.com"], { env: inbox.env });
        expect(JSON.parse(nothing.stdout)).toMatchObject({ briefs: [], spam: [], subscriber: null });
        expect((await runInbox(["person", "not-an-address"], { env: inbox.env })).code).toBe(2);
      }));
  });
}
