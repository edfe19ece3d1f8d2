import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/**
 * The site as a visitor's browser and a crawler meet it: the security headers on a page, an API
 * answer and a 404; the metadata files; and no page logging a console error or a CSP violation.
 */

const REQUIRED_CSP = [
  "default-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/** Every origin the policy names beyond the site's own: Turnstile's and the Blob upload API's. */
const ALLOWED_ORIGINS = ["https://challenges.cloudflare.com", "https://vercel.com/api/blob/"];

function expectSecurityHeaders(headers: Record<string, string>): void {
  const csp = headers["content-security-policy"] ?? "";
  for (const directive of REQUIRED_CSP) expect(csp).toContain(directive);
  const origins = csp.match(/https?:\/\/[^\s;]+/g) ?? [];
  expect([...new Set(origins)].sort()).toEqual([...ALLOWED_ORIGINS].sort());
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["permissions-policy"]).toMatch(/camera=\(\).*microphone=\(\).*geolocation=\(\)/);
  // SITE_URL is http here: no HSTS (the https case is tested against `next start` directly).
  expect(headers["strict-transport-security"]).toBeUndefined();
}

test.describe("security headers", () => {
  test("on the landing page", async ({ request }) => {
    const response = await request.get("/");
    expect(response.status()).toBe(200);
    expectSecurityHeaders(response.headers());
  });

  test("on an API answer", async ({ request }) => {
    const response = await request.get("/api/health");
    expect(response.status()).toBe(200);
    expectSecurityHeaders(response.headers());
  });

  test("on the contact route's answer", async ({ request }) => {
    const response = await request.post("/api/contact", {
      data: "{}",
      headers: { "content-type": "text/plain" },
    });
    expect(response.status()).toBe(415);
    expectSecurityHeaders(response.headers());
  });

  test("on a 404", async ({ request }) => {
    const response = await request.get("/no-such-page");
    expect(response.status()).toBe(404);
    expectSecurityHeaders(response.headers());
  });
});

test.describe("metadata files", () => {
  const files: [string, RegExp][] = [
    ["/robots.txt", /^text\/plain/],
    ["/sitemap.xml", /^application\/xml/],
    ["/icon", /^image\/png$/],
    ["/apple-icon", /^image\/png$/],
    ["/opengraph-image", /^image\/png$/],
    ["/twitter-image", /^image\/png$/],
  ];
  for (const [path, type] of files) {
    test(`${path} answers with its type`, async ({ request, baseURL }) => {
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toMatch(type);
      if (path === "/robots.txt") expect(await response.text()).toContain(`Sitemap: ${baseURL}/sitemap.xml`);
      if (path === "/sitemap.xml") expect(await response.text()).toContain(`<loc>${baseURL}/</loc>`);
    });
  }

  test("the landing page has a canonical URL, Open Graph and Twitter card tags, and icons", async ({
    page,
  }) => {
    await page.goto("/");
    // Absolute, on SITE_URL as it was where the site was built (the page is prerendered).
    const canonical = (await page.locator('link[rel="canonical"]').getAttribute("href")) ?? "";
    expect(canonical).toMatch(/^https?:\/\/[^/]+\/?$/);
    const origin = new URL(canonical).origin;
    await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", /Northwind Studio/);
    await expect(page.locator('meta[property="og:image"]')).toHaveAttribute(
      "content",
      new RegExp(`^${origin}/opengraph-image`),
    );
    await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", /\/icon/);
    await expect(page.locator('link[rel="apple-touch-icon"]')).toHaveAttribute("href", /\/apple-icon/);
  });
});

/** Console errors and CSP violations a page reports while it loads and settles. */
async function watch(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return problems;
}

test.describe("no console errors and no CSP violations", () => {
  for (const path of [
    "/",
    "/thank-you?reference=K7QM-3XD9-PTWA-84HC",
    "/newsletter?status=subscribed",
    "/contact?error=rate_limited&retry=60#contact",
    "/newsletter?error=rate_limited&retry=60",
  ]) {
    test(path, async ({ page }) => {
      const problems = await watch(page);
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      // Touch every form field there is, so whatever a form loads on first use loads too.
      for (const field of await page.locator("input:visible, textarea:visible").all()) await field.focus();
      await page.waitForLoadState("networkidle");
      expect(problems).toEqual([]);
    });
  }
});
