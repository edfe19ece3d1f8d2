import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { briefRecordSchema } from "@/lib/briefs";
import { parseConfig } from "@/lib/config";
import { CONTACT_FORM_LIMITS, receiveBrief, validateSubmission } from "@/lib/contact";
import { readMultipart } from "@/lib/http/body";
import { exportRow, EXPORT_COLUMNS } from "@/lib/ops";
import { attributionFrom } from "@/lib/schemas/attribution";
import { newsletterSchema } from "@/lib/schemas/newsletter";
import { deliveriesFor } from "../support/deliveries";
import { FilesystemStore } from "@/lib/store/filesystem";
import { briefForm, validBrief } from "../support/contact";

describe("attributionFrom: each value kept when it follows its rule, dropped otherwise", () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["nothing sent", {}, null],
    ["only empty values", { page: "", referrer: "   ", utm_source: "" }, null],
    ["a page", { page: "/pricing?plan=pro" }, { page: "/pricing?plan=pro" }],
    ["trimmed", { page: "  /  ", utm_source: " x " }, { page: "/", utm: { source: "x" } }],
    [
      "every key",
      {
        page: "/",
        referrer: "https://news.example/post",
        utm_source: "s",
        utm_medium: "m",
        utm_campaign: "c",
        utm_term: "t",
        utm_content: "k",
      },
      {
        page: "/",
        referrer: "https://news.example/post",
        utm: { source: "s", medium: "m", campaign: "c", term: "t", content: "k" },
      },
    ],
    ["page at 500 code points", { page: `/${"é".repeat(499)}` }, { page: `/${"é".repeat(499)}` }],
    ["page past 500", { page: `/${"a".repeat(500)}` }, null],
    ["emoji count as one", { utm_term: "🙂".repeat(200) }, { utm: { term: "🙂".repeat(200) } }],
    ["utm past 200", { utm_term: "a".repeat(201), utm_source: "kept" }, { utm: { source: "kept" } }],
    ["a line break", { referrer: "https://a.example\nX-Evil: 1", page: "/" }, { page: "/" }],
    ["a NUL", { utm_campaign: "a\u0000b" }, null],
    ["a C1 control", { utm_medium: "a\u0085b" }, null],
    ["a bidi override", { utm_campaign: "spring\u202esale", page: "/" }, { page: "/" }],
    ["a bidi isolate", { referrer: "https://a.example/\u2067x\u2069" }, null],
    ["a direction mark", { utm_source: "news\u200f" }, null],
    ["an Arabic letter mark", { page: "/\u061c" }, null],
    ["not text", { page: 5, utm_source: ["a"] }, null],
  ];
  it.each(cases)("%s", (_label, fields, expected) => {
    expect(attributionFrom(fields)).toEqual(expected);
  });
});

describe("the newsletter body's page: kept when valid, dropped (never refused) otherwise", () => {
  it.each([
    [undefined, undefined],
    ["/pricing?plan=pro", "/pricing?plan=pro"],
    ["  /  ", "/"],
    ["", undefined],
    ["a\nb", undefined],
    [`/${"a".repeat(500)}`, undefined],
    [42, undefined],
    [{ path: "/" }, undefined],
  ])("%j -> %j", (page, expected) => {
    const parsed = newsletterSchema.safeParse({ email: "ada@example.com", page });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.page).toBe(expected);
  });
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attribution-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function submit(form: FormData, env: Record<string, string> = {}) {
  const request = new Request("http://studio.test/api/contact", { method: "POST", body: form });
  const submission = await validateSubmission(await readMultipart(request, CONTACT_FORM_LIMITS));
  const store = new FilesystemStore(join(dir, "inbox"));
  const receipt = await receiveBrief(
    {
      store,
      channels: [],
      config: parseConfig(env),
      acknowledger: null,
      deliveries: deliveriesFor(store).deliveries,
    },
    submission,
    { ipHash: null, userAgent: null, origin: null },
    "off",
  );
  const entries = await readdir(join(dir, "inbox"), { recursive: true });
  const path = entries.find((entry) => entry.endsWith(`${receipt.reference}/brief.json`));
  if (!path) throw new Error("no brief.json");
  return {
    receipt,
    path,
    json: JSON.parse(await readFile(join(dir, "inbox", path), "utf8")) as Record<string, unknown>,
  };
}

describe("the contact form's attribution, stored in brief.json", () => {
  it("keeps the valid values and drops the others, never refusing the brief", async () => {
    const form = briefForm(
      validBrief({ page: "/contact", utm_source: "x".repeat(201), utm_medium: "email" }),
    );
    form.append("referrer", "https://a.example");
    form.append("referrer", "https://b.example"); // twice: which one? neither
    form.append("utm_campaign", new Blob(["spring"]), "campaign.txt"); // a file: not text
    form.append("utm_term", "two\nlines");
    const { json, path } = await submit(form);
    expect(path.startsWith("briefs/")).toBe(true);
    expect(json.attribution).toEqual({ page: "/contact", utm: { medium: "email" } });
    expect(briefRecordSchema.parse(json).attribution).toEqual({ page: "/contact", utm: { medium: "email" } });
  });

  it("is null when the form sent none of it, and a record from before it existed reads as null", async () => {
    const { json } = await submit(briefForm(validBrief()));
    expect(json.attribution).toBeNull();
    expect("spam" in json).toBe(false);
    const old = { ...json };
    delete old.attribution;
    expect(briefRecordSchema.parse(old).attribution).toBeNull();
  });

  it("goes into the export as its own columns, after the others", () => {
    expect(EXPORT_COLUMNS.slice(-7)).toEqual([
      "page",
      "referrer",
      "utm_source",
      "utm_medium",
      "utm_campaign",
      "utm_term",
      "utm_content",
    ]);
  });
});

describe("spam rules at the contact form", () => {
  const rules = { SPAM_KEYWORDS: "casino, seo services", SPAM_EMAIL_DOMAINS: "münchen.example" };

  it.each([
    [
      "a keyword",
      { description: "Best casino deals, thirty characters at least." },
      { reason: "keyword", match: "casino" },
    ],
    ["a phrase", { company: "Top SEO Services" }, { reason: "keyword", match: "seo services" }],
    [
      "a domain's subdomain",
      { email: "bot@mail.xn--mnchen-3ya.example" },
      { reason: "domain", match: "münchen.example" },
    ],
    [
      "the honeypot first",
      { website: "x", description: "casino casino casino casino casino" },
      { reason: "honeypot" },
    ],
  ])("stores %s under spam/ with what caught it, answered as usual", async (_label, fields, verdict) => {
    const { receipt, path, json } = await submit(briefForm(validBrief(fields)), rules);
    expect(receipt.forwarded).toEqual([]);
    expect(path.startsWith("spam/")).toBe(true);
    expect(json.spam).toEqual(verdict);
    const files = await readdir(join(dir, "inbox", path, ".."));
    expect(files).not.toContain("delivery.json");
  });

  it("lets a brief that merely contains a keyword through", async () => {
    const { path, json } = await submit(
      briefForm(validBrief({ description: "A casinos-free booking system: the word is inside." })),
      { SPAM_KEYWORDS: "casino" },
    );
    expect(path.startsWith("briefs/")).toBe(true);
    expect("spam" in json).toBe(false);
  });

  it("writes the CSV row's attribution columns from the record", () => {
    const row = exportRow({
      kind: "briefs",
      folder: "briefs/2026/11/22/x",
      delivery: null,
      state: { status: "new", notes: [], history: [] },
      record: {
        reference: "K7QM-3XD9-PTWA-84HC",
        receivedAt: "2026-11-22T10:00:00.000Z",
        name: "Ada",
        email: "ada@example.com",
        company: null,
        role: null,
        projectType: "other",
        budget: "undecided",
        timeline: "exploring",
        description: "d",
        consent: true,
        attachment: null,
        verification: "off",
        client: { ipHash: null, userAgent: null, origin: null },
        attribution: { referrer: "https://r.example", utm: { campaign: "spring" } },
      },
    });
    expect(row).toMatchObject({
      page: null,
      referrer: "https://r.example",
      utm_source: null,
      utm_campaign: "spring",
      utm_content: null,
    });
  });
});
