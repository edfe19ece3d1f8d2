import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import { subscribe } from "@/lib/newsletter/subscribers";
import { readAudit } from "@/lib/ops/audit";
import { parseCsv } from "../support/csv";
import { makePdf, makePng } from "../support/files";
import { nextAddress } from "../support/contact";
import {
  LINK_SECRET,
  mailsTo,
  oneClickUnsubscribe,
  postConfirm,
  signLegacyLink,
  signLink,
  waitForMails,
} from "../support/opt-in";
import { attachmentFor, readJson, storeBrief } from "../support/ops";
import {
  addressIdOf,
  forgeSignInToken,
  newSessionId,
  opsFetch,
  postSession,
  requestLink,
  sessionRecord,
  signIn,
  signInLink,
  signInQuietly,
  tokenIn,
} from "../support/ops-web";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/**
 * The inbox on the web against `next start` on the filesystem inbox: a real SMTP server receives
 * the sign-in links (and the ops email channel's notices), the test fills the inbox with the
 * service's own `saveBrief`, and everything else goes over HTTP as a browser or a script sends it.
 */

const OPS = "ops@studio.example";
const PRODUCER = "Producer@Studio.example";
/** Listed, and used only to spend its own sign-in budget. */
const LIMITED = "limited@studio.example";
/** Listed, and signed out everywhere. */
const TEAM = "team@studio.example";
const FROM = "Northwind Studio <intake@studio.example>";

/** Every way into the inbox: pages, routes, and a path that does not exist. */
/** A page's text as a reader sees it: no tags or React's text separators, spaces collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/\s+/g, " ");
}

function gatedPaths(reference: string) {
  return {
    pages: [
      "/inbox",
      `/inbox/${reference}`,
      "/inbox/spam",
      "/inbox/subscribers",
      "/inbox/erase",
      "/inbox/audit",
    ],
    routes: [
      ["GET", `/inbox/${reference}/attachment`],
      ["GET", "/inbox/export.csv"],
      ["GET", "/inbox/subscribers/export.csv"],
      ["POST", `/api/ops/briefs/${reference}/status`],
      ["POST", `/api/ops/briefs/${reference}/notes`],
      ["POST", `/api/ops/briefs/${reference}/redeliver`],
      ["POST", `/api/ops/briefs/${reference}/not-spam`],
      ["POST", "/api/ops/erase"],
      ["POST", "/inbox/person.json"],
      ["POST", "/api/ops/sign-out"],
      ["POST", "/api/ops/sign-out/everywhere"],
      ["GET", "/api/ops/anything/else"],
    ] as const,
  };
}

describe("the inbox on the web, off", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp({ INBOX_DIR: await tempDir() });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 404 on every /inbox and /api/ops path, and robots.txt keeps crawlers out", async () => {
    const { pages, routes } = gatedPaths("K7QM-3XD9-PTWA-84HC");
    for (const path of [...pages, "/inbox/sign-in", "/inbox/sign-in/confirm?token=x"]) {
      const response = await fetch(`${app.url}${path}`, { redirect: "manual" });
      expect(response.status, path).toBe(404);
    }
    for (const [method, path] of [...routes, ["POST", "/api/ops/sign-in"], ["GET", "/api/ops/sign-in"]]) {
      const response = await fetch(`${app.url}${path}`, { method, redirect: "manual" });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect(await (await fetch(`${app.url}/robots.txt`)).text()).toContain("Disallow: /inbox");
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
  });
});

describe("switching it on", () => {
  it.each<[string, Record<string, string>, string[]]>([
    ["nothing else", { OPS_EMAILS: OPS }, ["LINK_SIGNING_SECRET", "SMTP_URL", "EMAIL_FROM"]],
    ["no SMTP", { OPS_EMAILS: OPS, LINK_SIGNING_SECRET: LINK_SECRET, EMAIL_FROM: FROM }, ["SMTP_URL"]],
    [
      "a short secret",
      { OPS_EMAILS: OPS, LINK_SIGNING_SECRET: "short", SMTP_URL: "smtp://127.0.0.1:2525", EMAIL_FROM: FROM },
      ["LINK_SIGNING_SECRET"],
    ],
    [
      "a list that is not addresses",
      {
        OPS_EMAILS: "ops, @nowhere",
        LINK_SIGNING_SECRET: LINK_SECRET,
        SMTP_URL: "smtp://127.0.0.1:2525",
        EMAIL_FROM: FROM,
      },
      ["OPS_EMAILS"],
    ],
  ])("the start refuses a half configuration: %s", async (_case, env, named) => {
    const { code, output } = await startAppExpectingFailure({ INBOX_DIR: await tempDir(), ...env });
    expect(code).not.toBe(0);
    for (const variable of named) expect(output).toContain(variable);
  });
});

describe("the inbox on the web, on the filesystem inbox", () => {
  let smtp: SmtpTestServer;
  let app: AppServer;
  let dir: string;
  let store: FilesystemStore;
  let env: Record<string, string>;
  const pdf = makePdf("The brief, in a PDF.");
  const png = makePng(6, 4);
  let withPdf: Awaited<ReturnType<typeof storeBrief>>;
  let withPng: Awaited<ReturnType<typeof storeBrief>>;
  let formula: Awaited<ReturnType<typeof storeBrief>>;
  let spam: Awaited<ReturnType<typeof storeBrief>>;
  let forget: Awaited<ReturnType<typeof storeBrief>>;
  let cookie: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    dir = await tempDir("ops-web-");
    store = new FilesystemStore(dir);
    withPdf = await storeBrief(store, {
      receivedAt: "2026-11-20T09:00:00.000Z",
      fields: { name: "Grace Hopper", email: "grace@navy.example", company: "Remington Rand" },
      attachment: attachmentFor(pdf, "Brief – Q1 «final» (v2).pdf", "application/pdf", "pdf"),
      delivery: { email: { ok: false, at: "2026-11-20T09:00:02.000Z", error: "refused" } },
    });
    withPng = await storeBrief(store, {
      receivedAt: "2026-11-21T09:00:00.000Z",
      fields: { name: "Ada Lovelace", description: "Sketches attached <script>alert(1)</script>" },
      attachment: attachmentFor(png, "sketch.png", "image/png", "png"),
      delivery: { acknowledgment: { ok: true, at: "2026-11-21T09:00:02.000Z" } },
    });
    formula = await storeBrief(store, {
      receivedAt: "2026-11-22T09:00:00.000Z",
      fields: { name: '=HYPERLINK("https://evil.example")', description: "+SUM(A1:A9) and more" },
      delivery: {
        webhook: { ok: true, at: "2026-11-22T09:00:01.000Z" },
        acknowledgment: {
          ok: false,
          suppressed: true,
          at: "2026-11-22T09:00:02.000Z",
          error: "not sent: an acknowledgment went to this address within 10 minutes",
        },
      },
    });
    spam = await storeBrief(store, {
      receivedAt: "2026-11-19T09:00:00.000Z",
      folder: "spam",
      fields: { name: "Real Lead In Spam", email: "lead@client.example" },
    });
    forget = await storeBrief(store, {
      receivedAt: "2026-10-02T09:00:00.000Z",
      fields: { name: "Forget Me", email: "Forget.Me@client.example" },
      attachment: attachmentFor(makePdf("mine"), "mine.pdf", "application/pdf", "pdf"),
      delivery: {},
    });
    await storeBrief(store, {
      receivedAt: "2026-10-03T09:00:00.000Z",
      folder: "spam",
      fields: { email: "forget.me@client.example" },
    });
    await subscribe(store, { email: "forget.me@CLIENT.example", topics: [] });

    env = {
      INBOX_DIR: dir,
      OPS_EMAILS: `${OPS}, ${PRODUCER}, ${LIMITED}, ${TEAM}`,
      LINK_SIGNING_SECRET: LINK_SECRET,
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_TO: "studio@studio.example",
      NOTIFY_TIMEOUT_MS: "3000",
    };
    app = await startApp(env);
    cookie = await signIn(app, smtp, OPS);
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("without a session: pages redirect to sign in, everything else is 401, and nothing of a brief is said", async () => {
    const { pages, routes } = gatedPaths(withPdf.record.reference);
    for (const session of [
      null,
      "__Host-ops_session=not-a-session",
      `__Host-ops_session=${"A".repeat(43)}`,
    ]) {
      for (const path of pages) {
        const response = await opsFetch(app, path, session);
        expect([303, 307], path).toContain(response.status);
        expect(response.headers.get("location")).toBe(`/inbox/sign-in?next=${encodeURIComponent(path)}`);
        const body = await response.text();
        expect(body).not.toContain("Grace");
        expect(response.headers.get("x-robots-tag")).toBe("noindex");
      }
      for (const [method, path] of routes) {
        const response = await opsFetch(app, path, session, {
          method,
          headers: method === "POST" ? { origin: app.url, "content-type": "application/json" } : {},
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        const body = await response.text();
        expect(JSON.parse(body)).toMatchObject({ ok: false, error: "unauthorized" });
        expect(body).not.toContain(withPdf.record.reference);
        expect(response.headers.get("cache-control")).toContain("no-store");
        expect(response.headers.get("x-robots-tag")).toBe("noindex");
      }
    }
    // Nothing changed on the way.
    expect(await readJson(store, `${withPdf.folder}/state.json`)).toBeNull();
  });

  it("answers every valid address the same, emails only listed ones, and refuses a bad one", async () => {
    const stranger = `stranger.${Date.now()}@client.example`;
    const listed = await requestLink(app, "producer@studio.EXAMPLE");
    const unlisted = await requestLink(app, stranger);
    for (const response of [listed, unlisted]) {
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true, status: "link-sent" });
    }
    await signInLink(smtp, "producer@studio.example");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(smtp, stranger)).toEqual([]);

    const bad = await requestLink(app, "not an address");
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({
      error: "validation_failed",
      fields: { email: expect.any(String) },
    });

    // A browser posting the form without JavaScript comes back to the page.
    const form = await fetch(`${app.url}/api/ops/sign-in`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "x-forwarded-for": nextAddress(),
        origin: app.url,
      },
      body: new URLSearchParams({ email: `someone.${Date.now()}@client.example` }).toString(),
      redirect: "manual",
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/inbox/sign-in?done=link-sent");
  });

  it("a stranger asking for a listed address from many clients never locks its owner out: link-sent always, at most 5 emails", async () => {
    const before = mailsTo(smtp, LIMITED).length;
    // Each request from another client address (requestLink takes a fresh one every time).
    for (let i = 0; i < 8; i++) {
      const response = await requestLink(app, i % 2 === 0 ? LIMITED : LIMITED.toUpperCase());
      expect(response.status, `request ${i + 1}`).toBe(200);
      expect(await response.json()).toEqual({ ok: true, status: "link-sent" });
    }
    await waitForMails(smtp, LIMITED, before + 5);
    // The owner's own request, from a client of its own: the same answer, and no sixth email.
    const own = await requestLink(app, LIMITED);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ ok: true, status: "link-sent" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mailsTo(smtp, LIMITED).length - before).toBe(5);
  });

  it("limits one client to 5 sign-in requests per 15 minutes, listed address or not: the 6th is a 429 with Retry-After", async () => {
    const client = nextAddress();
    const before = mailsTo(smtp, OPS).length;
    for (let i = 0; i < 5; i++) {
      const email = i === 0 ? OPS : `c${i}.${Date.now()}@client.example`;
      expect((await requestLink(app, email, { "x-forwarded-for": client })).status).toBe(200);
    }
    for (const email of [`last.${Date.now()}@client.example`, OPS]) {
      const refused = await requestLink(app, email, { "x-forwarded-for": client });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toMatchObject({ ok: false, error: "rate_limited" });
    }
    await waitForMails(smtp, OPS, before + 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(smtp, OPS).length - before).toBe(1);
  });

  it("the confirmation page spends nothing; its POST spends the link once; spent, expired and tampered links are 422", async () => {
    const email = "producer@studio.example";
    const before = mailsTo(smtp, email).length;
    await requestLink(app, PRODUCER);
    const link = await signInLink(smtp, email, before + 1);
    for (let i = 0; i < 2; i++) {
      const page = await fetch(link, { redirect: "manual" });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Sign in");
    }
    const first = await postSession(app, tokenIn(link));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, status: "signed-in" });
    const setCookie = first.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-ops_session=[A-Za-z0-9_-]{43}; /);
    const attributes = setCookie
      .split(";")
      .slice(1)
      .map((part) => part.trim());
    expect(attributes).toEqual(expect.arrayContaining(["HttpOnly", "Secure", "SameSite=Lax", "Path=/"]));
    expect(Number(/Max-Age=(\d+)/.exec(setCookie)?.[1])).toBeLessThanOrEqual(43_200);
    expect(setCookie).not.toMatch(/Domain=/i);

    const again = await postSession(app, tokenIn(link));
    expect(again.status).toBe(422);
    expect(await again.json()).toMatchObject({
      error: "validation_failed",
      fields: { token: expect.stringContaining("used") },
    });

    const expired = await postSession(app, forgeSignInToken(app.url, OPS, -60));
    expect(expired.status).toBe(422);
    expect((await expired.json()).fields.token).toContain("expired");
    const forged = await postSession(
      app,
      forgeSignInToken(app.url, OPS, 600, "another-secret-of-at-least-32-characters!"),
    );
    expect(forged.status).toBe(422);
    const token = tokenIn(link);
    const tampered = await postSession(app, `${token.slice(0, 10)}x${token.slice(11)}`);
    expect(tampered.status).toBe(422);
    // A valid signature for an address that is not listed.
    expect((await postSession(app, forgeSignInToken(app.url, "stranger@client.example", 600))).status).toBe(
      422,
    );
    // The secret signs newsletter links too, and another site may share it: neither signs anyone in.
    const id = addressIdOf(OPS);
    const jti = "0".repeat(32);
    const foreign: [string, string][] = [
      ["another site's sign-in token", forgeSignInToken("https://other-studio.example", OPS, 600)],
      ["a newsletter confirm token", signLink(app.url, { act: "confirm", sub: id, exp: 4e9, jti })],
      ["a newsletter unsubscribe token", signLink(app.url, { act: "unsubscribe", sub: id, jti })],
      ["an old-form sign-in token", signLegacyLink({ act: "ops.sign-in", sub: id, exp: 4e9, jti })],
      ["an old-form unsubscribe token", signLegacyLink({ act: "newsletter.unsubscribe", sub: id, jti })],
    ];
    for (const [label, bad] of foreign) {
      const refused = await postSession(app, bad);
      expect(refused.status, label).toBe(422);
      expect(await refused.json(), label).toMatchObject({
        error: "validation_failed",
        fields: { token: expect.any(String) },
      });
    }
    // Nor is a sign-in token any newsletter link.
    const signInToken = forgeSignInToken(app.url, OPS, 600);
    expect((await postConfirm(app.url, { token: signInToken })).status).toBe(422);
    expect(
      (await oneClickUnsubscribe(`${app.url}/api/newsletter/unsubscribe?token=${signInToken}`)).status,
    ).toBe(422);

    // The form post signs in and goes to `next` (under /inbox only).
    const browserLink = forgeSignInToken(app.url, OPS, 600);
    const form = await fetch(`${app.url}/api/ops/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: app.url },
      body: new URLSearchParams({ token: browserLink, next: "https://evil.example/" }).toString(),
      redirect: "manual",
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/inbox");
  });

  it("signed in: the list, a search, the counts, the brief page with every field as text", async () => {
    const list = await opsFetch(app, "/inbox", cookie);
    expect(list.status).toBe(200);
    expect(list.headers.get("cache-control")).toContain("no-store");
    const html = await list.text();
    for (const brief of [withPdf, withPng, formula]) expect(html).toContain(brief.record.reference);
    expect(html).not.toContain(spam.record.reference);

    const search = await (await opsFetch(app, "/inbox?q=remington", cookie)).text();
    expect(search).toContain(withPdf.record.reference);
    expect(search).not.toContain(withPng.record.reference);

    const page = await (await opsFetch(app, `/inbox/${withPng.record.reference}`, cookie)).text();
    expect(page).toContain("Ada Lovelace");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).not.toContain("<script>alert(1)</script>");
    expect(page).toContain(`/inbox/${withPng.record.reference}/attachment?inline`);
    // The acknowledgment to the sender, beside the channels (here none was configured).
    const notifications = (html: string) =>
      textOf(html.slice(html.indexOf(">Notifications<"), html.indexOf(">Redeliver<")));
    expect(notifications(page)).toContain("No channel was configured.");
    expect(notifications(page)).toContain("Acknowledgment to the sender sent (2026-11-21 09:00:02 UTC)");
    const held = await (await opsFetch(app, `/inbox/${formula.record.reference}`, cookie)).text();
    expect(notifications(held)).toContain("webhook delivered (2026-11-22 09:00:01 UTC)");
    expect(notifications(held)).toContain(
      "Acknowledgment to the sender suppressed: not sent: an acknowledgment went to this address within 10 minutes (2026-11-22 09:00:02 UTC)",
    );

    // A reference in another spelling finds the brief; one that is none is a 404.
    expect((await opsFetch(app, `/inbox/${withPng.record.reference.toLowerCase()}`, cookie)).status).toBe(
      200,
    );
    expect((await opsFetch(app, "/inbox/K7QM-3XD9-PTWA-84HD", cookie)).status).toBe(404);
  });

  it("downloads the attachment's exact bytes with the contract's headers; unknown and traversal references are 404", async () => {
    const response = await opsFetch(app, `/inbox/${withPdf.record.reference}/attachment`, cookie);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const encoded = encodeURIComponent("Brief – Q1 «final» (v2).pdf").replace("(", "%28").replace(")", "%29");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename*=UTF-8''${encoded}`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expect(response.headers.get("cache-control")).toBe("private, no-store");

    const image = await opsFetch(app, `/inbox/${withPng.record.reference}/attachment?inline`, cookie);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(png))).toBe(true);

    for (const path of [
      "/inbox/K7QM-3XD9-PTWA-84HD/attachment",
      `/inbox/${formula.record.reference}/attachment`,
      "/inbox/..%2F..%2F..%2Fetc%2Fpasswd/attachment",
      `/inbox/${encodeURIComponent(`../${withPdf.folder}`)}/attachment`,
      "/inbox/%2e%2e/attachment",
    ]) {
      const refused = await opsFetch(app, path, cookie);
      expect(refused.status, path).toBe(404);
      expect(await refused.text()).not.toContain("root:");
    }
  });

  it("exports the list's CSV with the ops tool's columns, formulas neutralised", async () => {
    // An export with a search for the address erased later: the audit log must not keep it.
    const searched = await opsFetch(
      app,
      "/inbox/export.csv?q=forget.me%40client.example&to=2026-10-31",
      cookie,
    );
    expect(parseCsv(await searched.text()).map((row) => row[0])).toEqual([
      "reference",
      forget.record.reference,
    ]);
    const response = await opsFetch(app, "/inbox/export.csv?from=2026-11-01", cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = parseCsv(await response.text());
    expect(rows[0]?.slice(0, 3)).toEqual(["reference", "receivedAt", "name"]);
    expect(rows[0]?.slice(-8)).toEqual([
      "status",
      "page",
      "referrer",
      "utm_source",
      "utm_medium",
      "utm_campaign",
      "utm_term",
      "utm_content",
    ]);
    const names = rows.slice(1).map((row) => row[2]);
    expect(names).toContain(`'=HYPERLINK("https://evil.example")`);
    const row = rows.find((cells) => cells[0] === formula.record.reference);
    expect(row?.[9]).toBe("'+SUM(A1:A9) and more");
    expect(rows.some((cells) => cells[0] === forget.record.reference)).toBe(false);
  });

  it("marks, counts and filters a brief with a failed delivery record, in the list and the export", async () => {
    // The record lib/deliveries leaves when a channel gives up (the Redeliver test below delivers
    // it, which removes it again).
    const failed = { reference: withPdf.record.reference, folder: withPdf.folder, channel: "email" };
    await store.put(
      `deliveries/failed/${withPdf.record.reference}.email.json`,
      `${JSON.stringify({ ...failed, at: "2026-11-20T09:00:02.000Z", error: "refused" })}\n`,
      "application/json",
    );
    const all = await (await opsFetch(app, "/inbox", cookie)).text();
    expect(textOf(all)).toContain("0 briefs retrying, 1 failed");
    const list = await (await opsFetch(app, "/inbox?delivery=failed", cookie)).text();
    expect(list).toContain(withPdf.record.reference);
    expect(list).not.toContain(withPng.record.reference);
    expect(textOf(list)).toContain("Delivery failed");
    expect(list).toContain('<option value="failed" selected="">failed</option>');
    // Anything else is no filter, as for the others.
    expect(await (await opsFetch(app, "/inbox?delivery=lost", cookie)).text()).toContain(
      withPng.record.reference,
    );
    const csv = parseCsv(await (await opsFetch(app, "/inbox/export.csv?delivery=failed", cookie)).text());
    expect(csv.slice(1).map((row) => row[0])).toEqual([withPdf.record.reference]);
    const retrying = parseCsv(
      await (await opsFetch(app, "/inbox/export.csv?delivery=retrying", cookie)).text(),
    );
    expect(retrying).toHaveLength(1);
  });

  it("two status saves and two notes at once are all kept; a cross-origin POST changes nothing", async () => {
    const reference = withPdf.record.reference;
    const second = await signIn(app, smtp, PRODUCER);
    const [a, b, c, d] = await Promise.all([
      opsFetch(app, `/api/ops/briefs/${reference}/status`, cookie, { json: { status: "handled" } }),
      opsFetch(app, `/api/ops/briefs/${reference}/status`, second, { json: { status: "archived" } }),
      opsFetch(app, `/api/ops/briefs/${reference}/notes`, cookie, { json: { text: "Called back." } }),
      opsFetch(app, `/api/ops/briefs/${reference}/notes`, second, { json: { text: "Sent a quote." } }),
    ]);
    for (const response of [a, b, c, d]) expect(response.status).toBe(200);
    const state = await readJson<{
      status: string;
      history: { status: string; by: string }[];
      notes: { by: string; text: string }[];
    }>(store, `${withPdf.folder}/state.json`);
    expect(state?.history.map((change) => `${change.status} ${change.by}`).sort()).toEqual([
      "archived producer@studio.example",
      `handled ${OPS}`,
    ]);
    expect(state?.notes.map((note) => `${note.text} ${note.by}`).sort()).toEqual([
      `Called back. ${OPS}`,
      "Sent a quote. producer@studio.example",
    ]);

    const cross = await opsFetch(app, `/api/ops/briefs/${reference}/status`, cookie, {
      json: { status: "new" },
      headers: { origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
    expect(await cross.json()).toMatchObject({ error: "cross_origin" });
    const sameSite = await opsFetch(app, `/api/ops/sign-out`, cookie, {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(sameSite.status).toBe(403);
    expect((await readJson<{ status: string }>(store, `${withPdf.folder}/state.json`))?.status).not.toBe(
      "new",
    );

    const bad = await opsFetch(app, `/api/ops/briefs/${reference}/status`, cookie, {
      json: { status: "done" },
    });
    expect(bad.status).toBe(422);
    const list = await (await opsFetch(app, "/inbox?status=new", cookie)).text();
    expect(list).not.toContain(reference);
  });

  it("Not spam moves a catch into the inbox as new and notifies the channels", async () => {
    const reference = spam.record.reference;
    const spamList = await (await opsFetch(app, "/inbox/spam", cookie)).text();
    expect(spamList).toContain(reference);
    const moved = await opsFetch(app, `/api/ops/briefs/${reference}/not-spam`, cookie, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(moved.status).toBe(200);
    const folder = spam.folder.replace(/^spam\//, "briefs/");
    expect(await readJson(store, `${folder}/brief.json`)).toEqual(spam.record);
    expect(await readJson(store, `${spam.folder}/brief.json`)).toBeNull();
    expect(await readJson(store, `${folder}/delivery.json`)).toMatchObject({ email: { ok: true } });
    expect(smtp.forReference(reference)).toHaveLength(1);
    expect(await (await opsFetch(app, "/inbox?status=new", cookie)).text()).toContain(reference);
  });

  it("Redeliver sends a failed channel again with the ops tool's code", async () => {
    const reference = withPdf.record.reference;
    const response = await opsFetch(app, `/api/ops/briefs/${reference}/redeliver`, cookie, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "redelivered", delivery: { email: { ok: true } } });
    const mail = smtp.forReference(reference).at(-1);
    expect(mail?.parsed.attachments[0]?.content).toBeDefined();

    // With `channel`, that one alone, though delivered ("Send again"); a name that is no channel is 422.
    const sent = smtp.forReference(reference).length;
    const again = await opsFetch(app, `/api/ops/briefs/${reference}/redeliver`, cookie, {
      json: { channel: "email" },
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "redelivered" });
    expect(smtp.forReference(reference)).toHaveLength(sent + 1);
    const nothing = await opsFetch(app, `/api/ops/briefs/${reference}/redeliver`, cookie, {
      json: { channel: "pigeon" },
    });
    expect(nothing.status).toBe(422);
    expect(await nothing.json()).toMatchObject({
      error: "validation_failed",
      fields: { channel: expect.any(String) },
    });
    expect(smtp.forReference(reference)).toHaveLength(sent + 1);
  });

  it("downloads a person's data as a JSON file, by a POST with the address in the body, audited by its hash", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/inbox/person.json`, {
        method: "POST",
        headers: {
          cookie,
          origin: app.url,
          "content-type": "application/x-www-form-urlencoded",
          accept: "text/html",
          ...headers,
        },
        body,
        redirect: "manual",
      });
    const response = await post("email=Forget.Me%40client.example");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="person-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-robots-tag")).toBe("noindex");
    const data = (await response.json()) as Record<string, unknown>;
    expect(data).toEqual({
      address: "Forget.Me@client.example",
      generatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      briefs: [{ brief: forget.record, state: null, delivery: {} }],
      spam: [
        {
          brief: expect.objectContaining({ email: "forget.me@client.example" }),
          state: null,
          delivery: null,
        },
      ],
      subscriber: expect.objectContaining({ email: "forget.me@CLIENT.example", status: "confirmed" }),
    });
    // The attachment by name, size and hash, never its bytes.
    expect(forget.record.attachment).toMatchObject({ originalName: "mine.pdf", sha256: expect.any(String) });

    const audited = (await readAudit(store)).find((entry) => entry.action === "export-person");
    expect(audited).toMatchObject({
      actor: OPS,
      target: { emailSha256: addressIdOf("forget.me@client.example"), briefs: 1, spam: 1, subscribers: 1 },
    });
    expect(JSON.stringify(audited)).not.toMatch(/forget\.me/i);

    expect((await post("email=not-an-address")).status).toBe(422);
    expect((await post("email=forget.me%40client.example", { origin: "https://evil.example" })).status).toBe(
      403,
    );
    expect((await opsFetch(app, "/inbox/person.json", cookie)).status).toBe(405);
  });

  it("erases an address only when it is typed twice; afterwards nothing of it is found, listed or downloaded", async () => {
    // The page never takes the address from its URL: finding it is a POST.
    const page = await (await opsFetch(app, "/inbox/erase?email=forget.me%40client.example", cookie)).text();
    expect(textOf(page)).toContain("A person's data");
    // (Next's own page data repeats the URL it was asked for; nothing the page renders uses it.)
    const rendered = page.replace(/<script[^>]*>[\s\S]*?<\/script>/g, "");
    expect(rendered).not.toContain("forget.me");
    expect(rendered).not.toContain("1 brief");
    const mismatch = await opsFetch(app, "/api/ops/erase", cookie, {
      json: { email: "forget.me@client.example", confirm: "forget.you@client.example" },
    });
    expect(mismatch.status).toBe(422);
    expect(await readJson(store, `${forget.folder}/brief.json`)).not.toBeNull();

    const erased = await opsFetch(app, "/api/ops/erase", cookie, {
      json: { email: "forget.me@client.example", confirm: "FORGET.ME@client.example" },
    });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toMatchObject({ status: "erased", briefs: 1, spam: 1, subscribers: 1 });

    expect(await (await opsFetch(app, "/inbox?q=forget", cookie)).text()).not.toContain(
      forget.record.reference,
    );
    expect((await opsFetch(app, `/inbox/${forget.record.reference}/attachment`, cookie)).status).toBe(404);
    expect((await opsFetch(app, `/inbox/${forget.record.reference}`, cookie)).status).toBe(404);
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) =>
      entry.isFile(),
    );
    for (const file of files) {
      const text = (await readFile(join(file.parentPath, file.name))).toString("utf8").toLowerCase();
      expect(text, join(file.parentPath, file.name)).not.toContain("forget.me");
    }
  });

  it("records the audit log, with an erase's hash and counts but never the address, and shows it", async () => {
    const files = (await readdir(join(dir, "audit"), { recursive: true, withFileTypes: true })).filter(
      (entry) => entry.isFile(),
    );
    const entries = await Promise.all(
      files.map(
        async (file) =>
          JSON.parse(await readFile(join(file.parentPath, file.name), "utf8")) as Record<string, unknown>,
      ),
    );
    const actions = new Set(entries.map((entry) => entry.action));
    for (const action of [
      "sign-in",
      "download",
      "export",
      "status",
      "note",
      "not-spam",
      "redeliver",
      "erase",
      "export-person",
    ]) {
      expect(actions, action).toContain(action);
    }
    const eraseEntry = entries.find((entry) => entry.action === "erase");
    expect(eraseEntry).toMatchObject({
      actor: OPS,
      target: { briefs: 1, spam: 1, subscribers: 1, emailSha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    for (const file of files) expect(file.parentPath).toMatch(/audit\/\d{4}\/\d{2}\/\d{2}$/);
    const page = await (await opsFetch(app, "/inbox/audit", cookie)).text();
    expect(page).toContain("not-spam");
  });

  it("a session idle for more than 2 hours is ended; one in use is kept, its last use written at most once a minute", async () => {
    const sessionPath = (hash: string) => join(dir, "ops", "sessions", `${hash}.json`);
    const plant = async (record: Record<string, string>) => {
      const session = newSessionId();
      await writeFile(sessionPath(session.hash), JSON.stringify(record));
      return session;
    };
    const idle = await plant(sessionRecord(OPS, { createdS: 3 * 3600, lastSeenS: 2 * 3600 + 60 }));
    const unrecorded = await plant(sessionRecord(OPS, { createdS: 2 * 3600 + 60 }));
    const active = await plant(sessionRecord(OPS, { createdS: 3 * 3600, lastSeenS: 3600 }));

    for (const ended of [idle, unrecorded]) {
      const page = await opsFetch(app, "/inbox", ended.cookie);
      expect(page.status).toBe(307);
      expect(page.headers.get("location")).toBe("/inbox/sign-in?next=%2Finbox");
      expect((await opsFetch(app, "/inbox/export.csv", ended.cookie)).status).toBe(401);
      await expect(readFile(sessionPath(ended.hash))).rejects.toThrow(/ENOENT/);
    }

    const started = Date.now();
    expect((await opsFetch(app, "/inbox", active.cookie)).status).toBe(200);
    const seen = JSON.parse(await readFile(sessionPath(active.hash), "utf8")) as { lastSeenAt: string };
    expect(Date.parse(seen.lastSeenAt)).toBeGreaterThanOrEqual(started - 1_000);
    const written = await readFile(sessionPath(active.hash), "utf8");
    expect((await opsFetch(app, "/inbox/audit", active.cookie)).status).toBe(200);
    expect(await readFile(sessionPath(active.hash), "utf8")).toBe(written);
  });

  it("sign out everywhere ends every session of the address, and only its own, and is audited", async () => {
    const here = await signInQuietly(app, TEAM);
    const elsewhere = await signInQuietly(app, TEAM);
    const other = await signInQuietly(app, PRODUCER);
    for (const session of [here, elsewhere, other]) {
      expect((await opsFetch(app, "/inbox", session)).status).toBe(200);
    }

    const cross = await opsFetch(app, "/api/ops/sign-out/everywhere", here, {
      method: "POST",
      headers: { origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
    expect((await opsFetch(app, "/inbox", elsewhere)).status).toBe(200);

    const out = await opsFetch(app, "/api/ops/sign-out/everywhere", here, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ ok: true, status: "signed-out" });
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    for (const ended of [here, elsewhere]) {
      expect((await opsFetch(app, "/inbox", ended)).status).toBe(307);
      expect((await opsFetch(app, "/inbox/export.csv", ended)).status).toBe(401);
    }
    expect((await opsFetch(app, "/inbox", other)).status).toBe(200);
    expect((await opsFetch(app, "/inbox", cookie)).status).toBe(200);

    const audit = await readAudit(store, { limit: 10_000 });
    expect(audit.filter((entry) => entry.actor === TEAM && entry.action === "sign-out")).toEqual([
      expect.objectContaining({ target: "everywhere (2 sessions)" }),
    ]);
    // No file name in the inbox names the address.
    const paths = (await readdir(join(dir, "ops"), { recursive: true })).join("\n");
    expect(paths).not.toContain("team");

    // The shell's button: a plain form post, back to the sign-in page.
    const again = await signInQuietly(app, TEAM);
    const page = await (await opsFetch(app, "/inbox", again)).text();
    expect(page).toMatch(/<form action="\/api\/ops\/sign-out\/everywhere" method="post">/);
    const form = await opsFetch(app, "/api/ops/sign-out/everywhere", again, {
      method: "POST",
      headers: {
        origin: app.url,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/inbox/sign-in?done=signed-out");
    expect((await opsFetch(app, "/inbox", again)).status).toBe(307);
  });

  it("signing out, and removal from OPS_EMAILS, end the session", async () => {
    const mine = await signIn(app, smtp, OPS);
    expect((await opsFetch(app, "/inbox", mine)).status).toBe(200);
    const out = await opsFetch(app, "/api/ops/sign-out", mine, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await opsFetch(app, "/inbox", mine)).status).toBe(307);
    expect((await opsFetch(app, "/inbox/export.csv", mine)).status).toBe(401);

    // The producer is taken off the list: the same inbox (and its sessions), restarted.
    const producer = await signIn(app, smtp, PRODUCER);
    expect((await opsFetch(app, "/inbox", producer)).status).toBe(200);
    await app.stop();
    app = await startApp({ ...env, OPS_EMAILS: OPS });
    expect((await opsFetch(app, "/inbox", producer)).status).toBe(307);
    expect((await opsFetch(app, "/inbox", cookie)).status).toBe(200);
  });
});
