import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startSmtpServer, type SmtpTestServer } from "../support/smtp";
import { expect, fillBrief, recordScripts, scriptsCarrying, test } from "./fixtures";
import { E2E_PORT } from "./env";
import { expectNoncePolicy, signInByKeyboard, watchForProblems } from "./inbox-helpers";

/**
 * The package as another site adopts it: `npm pack` of this repository installed into a copy of
 * tests/fixtures/adopter-site (its own layout and page, no Tailwind), `studio-intake init --inbox`,
 * then that site's own `next build` and `next start`, and Chromium sending a brief with a file
 * through its <ContactForm />, subscribing through its <NewsletterForm />, and signing in to its
 * inbox by the emailed link to find the brief there. Slow (npm install and a production build of a
 * second site): minutes, not seconds.
 */

const run = promisify(execFile);
const ROOT = resolve(".");
const PORT = E2E_PORT + 3000;
const URL = `http://127.0.0.1:${PORT}`;
const OPS = "ops@acme.example";

let folder = "";
let site = "";
let server: ChildProcess | null = null;
let smtp: SmtpTestServer | null = null;
/** The brief the first test sends, which the inbox then shows. */
let reference = "";

test.describe.configure({ mode: "serial", timeout: 20 * 60_000 });

/** Runs a command in `cwd`, failing with its output when it fails. */
async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  return stdout;
}

test.beforeAll(async () => {
  // A hook's own time: npm pack, npm install and next build of a second site.
  test.setTimeout(20 * 60_000);
  folder = await mkdtemp(join(tmpdir(), "adopter-"));
  site = join(folder, "site");
  await cp(join(ROOT, "tests/fixtures/adopter-site"), site, { recursive: true });
  // `npm pack` builds dist/ first (prepack): the tarball is what a registry would serve.
  await sh(ROOT, "npm", ["pack", "--pack-destination", folder]);
  const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
  const tarball = join(folder, `studio-intake-${version}.tgz`);
  await sh(site, "npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball]);

  const printed = await sh(site, "npx", ["studio-intake", "init", "--inbox"]);
  expect(printed).toContain("app/api/contact/route.ts");
  expect(printed).toContain("app/inbox/[reference]/page.tsx");
  expect(printed).toContain("proxy.ts");
  expect(await readFile(join(site, "app/api/contact/route.ts"), "utf8")).toBe(
    'export { POST } from "studio-intake/next/contact";\n',
  );
  expect(await readFile(join(site, "app/inbox/page.tsx"), "utf8")).toBe(
    'export { default } from "studio-intake/next/inbox/briefs";\nexport const dynamic = "force-dynamic";\n',
  );
  // Idempotent: a second run writes nothing and names every file as already there.
  expect(await sh(site, "npx", ["studio-intake", "init", "--inbox"])).not.toContain("Wrote:");
  await sh(site, "npx", ["next", "build"]);

  // Nothing may answer there yet: the test must talk to the server it started.
  expect(await fetch(`${URL}/api/health`).catch(() => null)).toBeNull();
  smtp = await startSmtpServer();
  // Next's own bin under node, not through npx: the process killed at the end is the server itself.
  const next = join(site, "node_modules/next/dist/bin/next");
  server = spawn(process.execPath, [next, "start", "--port", String(PORT), "--hostname", "127.0.0.1"], {
    cwd: site,
    stdio: "inherit",
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SITE_URL: URL,
      IP_HASH_SALT: "adopter",
      TRUSTED_PROXY_HOPS: "0",
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Acme Rockets <intake@acme.example>",
      EMAIL_TO: OPS,
      OPS_EMAILS: OPS,
      SITE_NAME: "Acme Rockets",
      LINK_SIGNING_SECRET: "adopter-link-signing-secret-of-32-characters",
    },
  });
  await expect
    .poll(async () => (await fetch(`${URL}/api/health`).catch(() => null))?.status, { timeout: 60_000 })
    .toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server.kill();
    await exited;
  }
  await smtp?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Text only the newsletter form's own code carries (the contact form's code does not). */
const NEWSLETTER_CODE = ["You are subscribed. The next issue will be in your inbox."];

test("the newsletter form's code loads only when the visitor comes near it, and then checks the form", async ({
  page,
}) => {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  const scripts = recordScripts(page);
  await page.goto(URL);
  await page.waitForLoadState("networkidle");
  const newsletter = page.getByRole("form", { name: "Newsletter" });
  await expect(newsletter).not.toBeInViewport();
  expect(scripts.size).toBeGreaterThan(0);
  expect(await scriptsCarrying(scripts, NEWSLETTER_CODE)).toEqual([]);

  await newsletter.scrollIntoViewIfNeeded();
  await expect.poll(async () => (await scriptsCarrying(scripts, NEWSLETTER_CODE)).length).toBeGreaterThan(0);
  // The form's code checks the address in the browser, sending nothing.
  const email = newsletter.getByLabel("Email", { exact: true });
  await email.fill("reader@");
  await newsletter.getByRole("button", { name: "Subscribe" }).click();
  await expect(email).toHaveAccessibleDescription(/valid email address/);
  expect(posts).toEqual([]);
});

test("a site that adopts the package takes briefs with a file and subscriptions", async ({ page }) => {
  await page.goto(URL);
  await expect(page.getByRole("heading", { name: "Rockets, made to order" })).toBeVisible();
  // The package's stylesheet, not the site's: the submit button has the studio's accent colour.
  await expect(page.getByRole("button", { name: "Send brief" })).toHaveCSS(
    "background-color",
    "rgb(67, 56, 202)",
  );

  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "launch.txt", mimeType: "text/plain", buffer: Buffer.from("Three stages.\n") });
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible({
    timeout: 30_000,
  });
  reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(reference).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

  // The brief reached ops by email, its file attached.
  await expect.poll(() => smtp?.received.length, { timeout: 30_000 }).toBeGreaterThan(0);
  const mail = smtp?.received.find((received) => received.envelope.to.includes(OPS));
  expect(mail?.parsed.subject).toContain(reference);
  expect(mail?.parsed.attachments.map((attachment) => attachment.filename)).toEqual(["launch.txt"]);

  const newsletter = page.getByRole("form", { name: "Newsletter" });
  await newsletter.getByLabel("Email", { exact: true }).fill("reader@example.com");
  await newsletter.getByRole("button", { name: "Subscribe" }).click();
  await expect(newsletter.getByRole("status")).toHaveText(
    "You are subscribed. The next issue will be in your inbox.",
  );
  const subscribers = await readdir(join(site, ".data/inbox/newsletter/subscribers"));
  expect(subscribers).toHaveLength(1);
  const [record] = subscribers;
  const stored = JSON.parse(
    await readFile(join(site, ".data/inbox/newsletter/subscribers", record ?? ""), "utf8"),
  ) as { email: string; status: string };
  expect(stored).toMatchObject({ email: "reader@example.com", status: "confirmed" });
});

test("its ops sign in to the inbox by the emailed link and find the brief there", async ({ page }) => {
  expect(reference, "the first test sent a brief").not.toBe("");
  const problems = await watchForProblems(page);
  const signIn = await page.goto(`${URL}/inbox`);
  await expect(page).toHaveURL(/\/inbox\/sign-in\?next=%2Finbox$/);
  // The proxy init wrote gives each inbox page its own nonce policy, and the headers this site's
  // next.config sends everywhere: the adopter's site has no next.config at all.
  expectNoncePolicy(signIn?.headers()["content-security-policy"]);
  expect(signIn?.headers()).toMatchObject({
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "x-frame-options": "DENY",
    "x-robots-tag": "noindex",
  });

  // The sign-in link is the next email to the address, which already has the brief's.
  const before = smtp?.received.filter((mail) => mail.envelope.to.includes(OPS)).length ?? 0;
  await signInByKeyboard(page, URL, smtp as SmtpTestServer, OPS, before + 1);
  await expect(page.getByRole("heading", { name: "Briefs" })).toBeVisible();
  // The site's own name, in the inbox's header and the sign-in email, never the studio's.
  await expect(page.getByRole("link", { name: "Acme Rockets Inbox" })).toBeVisible();
  const signInMail = smtp?.received.filter((mail) => mail.envelope.to.includes(OPS)).at(-1);
  expect(signInMail?.parsed.subject).toBe("Sign in to the Acme Rockets inbox");
  expect(signInMail?.parsed.text).not.toContain("Northwind");
  // The inbox's own stylesheet, which its layout brings: the site builds no Tailwind.
  await expect(page.getByRole("link", { name: "Export these as CSV" })).toHaveCSS(
    "color",
    "rgb(67, 56, 202)",
  );
  await page
    .getByRole("link", { name: new RegExp(reference) })
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`/inbox/${reference}$`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText("launch.txt")).toBeVisible();
  expect(problems).toEqual([]);

  // And the ops tool, the package's own command, reads the same inbox from the site's folder.
  expect(await sh(site, "npx", ["studio-intake", "inbox", "list"])).toContain(reference);
});
