import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import { briefForm, nextAddress, postContact, validBrief } from "../support/contact";
import { makePng } from "../support/files";
import { postNewsletter } from "../support/newsletter";
import { attachmentFor, storeBrief } from "../support/ops";
import { LINK_SECRET } from "../support/opt-in";
import { signIn } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/**
 * HSTS depends on `SITE_URL`, which is read at run time: the same build sends it when the site's
 * public origin is https and not otherwise: on pages, 404s and files (from the proxy) and on every
 * API answer, JSON or redirect (from the API's response builders: no proxy stands in front of the
 * API, whose routes read request bodies themselves).
 *
 * The Content Security Policy: the public pages' is fixed at build (`/` is prerendered), while each
 * inbox page is rendered per request under a policy of its own with a fresh nonce for its scripts.
 */

const HSTS = "max-age=63072000; includeSubDomains";

async function headersOf(app: AppServer) {
  const get = async (path: string) => (await fetch(`${app.url}${path}`)).headers;
  return {
    page: await get("/"),
    api: await get("/api/health"),
    missing: await get("/no-such-page"),
    robots: await get("/robots.txt"),
    contact: (await postContact(app.url, briefForm(validBrief()))).headers,
    refused: (await postContact(app.url, "not a form", { "content-type": "text/plain" })).headers,
    redirected: (
      await fetch(`${app.url}/api/contact`, {
        method: "POST",
        redirect: "manual",
        body: briefForm(validBrief()),
        headers: { accept: "text/html", "x-forwarded-for": nextAddress() },
      })
    ).headers,
    newsletter: (await postNewsletter(app.url, { email: "hsts@example.com" })).headers,
  };
}

describe("SITE_URL is https", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp({ INBOX_DIR: await tempDir(), SITE_URL: "https://studio.example" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("sends Strict-Transport-Security on every kind of answer", async () => {
    const headers = await headersOf(app);
    for (const [kind, received] of Object.entries(headers)) {
      expect(received.get("strict-transport-security"), kind).toBe(HSTS);
      expect(received.get("x-content-type-options"), kind).toBe("nosniff");
    }
  });

  it("names SITE_URL in robots.txt and sitemap.xml, read at run time", async () => {
    expect(await (await fetch(`${app.url}/robots.txt`)).text()).toContain(
      "Sitemap: https://studio.example/sitemap.xml",
    );
    expect(await (await fetch(`${app.url}/sitemap.xml`)).text()).toContain(
      "<loc>https://studio.example/</loc>",
    );
  });
});

describe("SITE_URL is http", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp({ INBOX_DIR: await tempDir() });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("sends no Strict-Transport-Security, and the other headers all the same", async () => {
    const headers = await headersOf(app);
    for (const [kind, received] of Object.entries(headers)) {
      expect(received.get("strict-transport-security"), kind).toBeNull();
      expect(received.get("content-security-policy"), kind).toContain("frame-ancestors 'none'");
    }
  });
});

interface RawAnswer {
  status: number;
  /** Every `Content-Security-Policy` line the server sent, as sent (fetch would join them). */
  policies: string[];
  /** Every header's lines, by lower-case name, as sent. */
  lines: Map<string, string[]>;
  body: string;
}

/** A GET over plain HTTP, so repeated headers are seen one by one. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers }, (incoming) => {
      const lines = new Map<string, string[]>();
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
        const name = incoming.rawHeaders[i]?.toLowerCase() ?? "";
        lines.set(name, [...(lines.get(name) ?? []), incoming.rawHeaders[i + 1] ?? ""]);
      }
      const policies = lines.get("content-security-policy") ?? [];
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () =>
        resolve({
          status: incoming.statusCode ?? 0,
          policies,
          lines,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/**
 * The fixed headers every inbox answer carries once each: from `next.config.ts` and from the proxy
 * (which an adopting site's config would not send) alike, the proxy's line replacing the config's.
 */
function expectInboxHeaders(answer: RawAnswer, path: string): void {
  for (const [name, value] of Object.entries({
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "x-frame-options": "DENY",
    "x-robots-tag": "noindex",
  })) {
    expect(answer.lines.get(name), `${name} on ${path}`).toEqual([value]);
  }
}

/** A policy's directives by name, each with its sources. */
function directivesOf(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(";")
      .map((directive) => directive.trim().split(/\s+/))
      .map(([name = "", ...sources]) => [name, sources]),
  );
}

/** The one nonce an inbox page's policy allows scripts by; fails on anything else. */
function nonceOf(answer: RawAnswer): string {
  expect(answer.policies).toHaveLength(1);
  const scripts = directivesOf(answer.policies[0] ?? "").get("script-src") ?? [];
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).toContain("'self'");
  expect(scripts).toContain("https://challenges.cloudflare.com");
  const nonces = scripts.filter((source) => /^'nonce-[A-Za-z0-9+/_-]{22,}={0,2}'$/.test(source));
  expect(nonces, scripts.join(" ")).toHaveLength(1);
  return (nonces[0] ?? "").slice("'nonce-".length, -1);
}

/** Every `<script>` tag of a page, as served. */
function scriptTagsOf(html: string): string[] {
  return html.match(/<script\b[^>]*>/g) ?? [];
}

describe("the inbox on the web: a nonce per request", () => {
  const OPS = "ops@studio.example";
  let smtp: SmtpTestServer;
  let app: AppServer;
  let cookie: string;
  let reference: string;
  /** The public pages' policy, which the inbox's must match in everything but scripts. */
  let publicPolicy: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const dir = await tempDir("csp-");
    const png = makePng(4, 4);
    reference = (
      await storeBrief(new FilesystemStore(dir), {
        attachment: attachmentFor(png, "sketch.png", "image/png", "png"),
      })
    ).record.reference;
    app = await startApp({
      INBOX_DIR: dir,
      OPS_EMAILS: OPS,
      LINK_SIGNING_SECRET: LINK_SECRET,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Northwind Studio <intake@studio.example>",
    });
    cookie = await signIn(app, smtp, OPS);
    const landing = await rawGet(`${app.url}/`);
    expect(landing.policies).toHaveLength(1);
    publicPolicy = landing.policies[0] ?? "";
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("the public pages keep the static policy: one header, inline scripts allowed, no nonce", async () => {
    for (const path of ["/", "/contact?error=rate_limited", "/newsletter", "/no-such-page", "/api/health"]) {
      const answer = await rawGet(`${app.url}${path}`);
      expect(answer.policies, path).toEqual([publicPolicy]);
    }
    const scripts = directivesOf(publicPolicy).get("script-src");
    expect(scripts).toContain("'unsafe-inline'");
    expect(scripts?.some((source) => source.startsWith("'nonce-"))).toBe(false);
  });

  it.each([
    ["the sign-in page", "/inbox/sign-in", false],
    ["the sign-in link's page", "/inbox/sign-in/confirm?token=x", false],
    ["the list", "/inbox", true],
    ["a brief", "/inbox/REFERENCE", true],
    ["the spam list", "/inbox/spam", true],
    ["an unknown brief", "/inbox/K7QM-3XD9-PTWA-84HC", true],
    ["a path no page answers", "/inbox/REFERENCE/no/such/page", true],
    ["the same, signed out", "/inbox/sign-in/confirm/more", false],
  ])(
    "%s: one policy, its scripts by a fresh nonce only, the other directives as the public pages'",
    async (_page, template, signedIn) => {
      const url = `${app.url}${template.replace("REFERENCE", reference)}`;
      const headers: Record<string, string> = signedIn ? { cookie } : {};
      const first = await rawGet(url, headers);
      expect([200, 404]).toContain(first.status);
      expectInboxHeaders(first, template);
      const nonce = nonceOf(first);
      const tags = scriptTagsOf(first.body);
      expect(tags.length).toBeGreaterThan(0);
      for (const tag of tags) expect(tag).toContain(` nonce="${nonce}"`);

      const inbox = directivesOf(first.policies[0] ?? "");
      const site = directivesOf(publicPolicy);
      inbox.delete("script-src");
      site.delete("script-src");
      expect(inbox).toEqual(site);

      const second = await rawGet(url, headers);
      expect(nonceOf(second)).not.toBe(nonce);
      expect(second.body).toContain(` nonce="${nonceOf(second)}"`);
    },
  );

  it("a path that is the inbox's but for case (no page, the prerendered 404) keeps the static policy", async () => {
    for (const path of ["/INBOX", "/Inbox/sign-in"]) {
      const answer = await rawGet(`${app.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.policies, path).toEqual([publicPolicy]);
    }
  });

  it("the attachment keeps its sandbox, signed in or not, and is the only policy it is sent", async () => {
    const path = `${app.url}/inbox/${reference}/attachment`;
    const download = await rawGet(path, { cookie });
    expect(download.status).toBe(200);
    expect(download.policies).toEqual(["sandbox; default-src 'none'"]);
    expectInboxHeaders(download, "the attachment");
    const refused = await rawGet(path);
    expect(refused.status).toBe(401);
    expect(refused.policies).toEqual(["sandbox; default-src 'none'"]);
    expectInboxHeaders(refused, "the attachment, signed out");
  });

  it("the CSV export and the inbox's API answers carry one policy each", async () => {
    const csv = await rawGet(`${app.url}/inbox/export.csv`, { cookie });
    expect(csv.status).toBe(200);
    expect(csv.policies).toHaveLength(1);
    const api = await rawGet(`${app.url}/api/ops/anything/else`, { cookie });
    expect(api.policies).toEqual([publicPolicy]);
  });
});
