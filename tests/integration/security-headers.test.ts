import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, nextAddress, postContact, validBrief } from "../support/contact";
import { postNewsletter } from "../support/newsletter";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * HSTS depends on `SITE_URL`, which is read at run time: the same build sends it when the site's
 * public origin is https and not otherwise: on pages, 404s and files (from the proxy) and on every
 * API answer, JSON or redirect (from the API's response builders: no proxy stands in front of the
 * API, whose routes read request bodies themselves).
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
