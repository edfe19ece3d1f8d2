import { put as clientPut } from "@vercel/blob/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredUploadType, newStagingId, stagedUploadPath } from "@/lib/schemas/staged-upload";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, nextAddress, validBrief } from "../support/contact";
import { makePdf } from "../support/files";
import { listInbox, readBriefJson } from "../support/inbox";
import { readSubscriber, subscriberFile } from "../support/newsletter";
import { runInbox } from "../support/ops";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import {
  type SiteverifyBehaviour,
  type SiteverifyStandIn,
  standInToken,
  startSiteverifyStandIn,
} from "../support/siteverify-standin";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Human verification under `next start`, with a siteverify stand-in (a real HTTP server) in
 * Cloudflare's place: both forms and the upload token route, on the filesystem inbox and on the
 * Blob inbox, with the webhook and email channels, the no-JavaScript path and the ops tool.
 */

const SECRET = "0x4AAAAAAA-integration-secret";
const SITE_KEY = "0x4AAAAAAA-integration-site-key";
const MESSAGE = "Please confirm you are human, then send again.";
/** The contract's bound for siteverify, plus room for the store, the channels and a busy machine. */
const FAIL_OPEN_BOUND_MS = 3_000 + 2_000;

interface ErrorBody {
  ok: false;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

let siteverify: SiteverifyStandIn;

beforeAll(async () => {
  siteverify = await startSiteverifyStandIn({ secret: SECRET, hostname: "127.0.0.1" });
});

afterAll(async () => {
  await siteverify?.stop();
});

function turnstileEnv(): Record<string, string> {
  return {
    TURNSTILE_SECRET_KEY: SECRET,
    TURNSTILE_SITE_KEY: SITE_KEY,
    TURNSTILE_VERIFY_URL: siteverify.url,
  };
}

function contactForm(token: string | null, overrides: Record<string, string> = {}): FormData {
  return briefForm(
    validBrief({ ...(token === null ? {} : { "cf-turnstile-response": token }), ...overrides }),
  );
}

async function postContact(
  app: AppServer,
  body: FormData,
  address = nextAddress(),
  headers: Record<string, string> = {},
) {
  const startedAt = Date.now();
  const response = await fetch(`${app.url}/api/contact`, {
    method: "POST",
    body,
    headers: { "x-forwarded-for": address, ...headers },
    redirect: "manual",
  });
  return { response, ms: Date.now() - startedAt };
}

function postNewsletter(app: AppServer, body: Record<string, unknown>, address = nextAddress()) {
  return fetch(`${app.url}/api/newsletter`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", "x-forwarded-for": address },
  });
}

let counter = 0;
const freshEmail = () => `reader.${Date.now()}.${++counter}@example.com`;

describe("Turnstile on the filesystem inbox, with both channels", () => {
  let app: AppServer;
  let inbox: string;
  let receiver: WebhookReceiver;
  let smtp: SmtpTestServer;

  beforeAll(async () => {
    inbox = await tempDir("turnstile-inbox-");
    receiver = await startWebhookReceiver();
    smtp = await startSmtpServer();
    app = await startApp({
      ...turnstileEnv(),
      INBOX_DIR: inbox,
      CONTACT_RATE_LIMIT: "1000/1m",
      NEWSLETTER_RATE_LIMIT: "1000/1m",
      WEBHOOK_URL: `${receiver.url}/hooks`,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Studio Intake <intake@studio.example>",
      EMAIL_TO: "ops@studio.example",
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
    await smtp?.stop();
  });

  const briefFiles = async () => (await listInbox(inbox)).filter((file) => !file.startsWith("newsletter/"));

  it("says so in /api/health, and never the keys", async () => {
    const text = await (await fetch(`${app.url}/api/health`)).text();
    expect(JSON.parse(text)).toMatchObject({ verification: "turnstile" });
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SITE_KEY);
  });

  it("stores a brief whose token passes, as passed in brief.json, the webhook and the email", async () => {
    const token = standInToken("pass", "contact");
    const address = nextAddress();
    const { response } = await postContact(app, contactForm(token), address);
    expect(response.status).toBe(200);
    const { reference, forwarded } = (await response.json()) as { reference: string; forwarded: string[] };
    expect(forwarded).toEqual(["webhook", "email"]);
    expect(await readBriefJson(inbox, reference)).toMatchObject({ reference, verification: "passed" });

    const [asked, ...more] = siteverify.requestsFor(token);
    expect(more).toEqual([]);
    expect(asked).toMatchObject({ secret: SECRET, response: token, remoteip: address });
    expect(asked?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    const [hook] = receiver.forReference(reference);
    expect(JSON.parse(hook?.body ?? "{}")).toMatchObject({ reference, verification: "passed" });
    const [mail] = smtp.forReference(reference);
    expect(mail?.parsed.text).toMatch(/^Human check: +passed \(Cloudflare Turnstile\)$/m);
    expect(mail?.parsed.text).not.toMatch(/^Human check: (not done|off)/m);
    expect(mail?.parsed.html).toContain("passed (Cloudflare Turnstile)");
  });

  it("refuses a brief without a token with 403 challenge_failed, asks nobody and stores nothing", async () => {
    const before = await briefFiles();
    const asked = siteverify.requests.length;
    const { response } = await postContact(app, contactForm(null));
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBe("1000");
    expect(await response.json()).toEqual({ ok: false, error: "challenge_failed", message: MESSAGE });
    expect(siteverify.requests.length).toBe(asked);
    expect(await briefFiles()).toEqual(before);
  });

  it.each<[string, SiteverifyBehaviour, string]>([
    ["refused by siteverify", "fail", "contact"],
    ["issued on another site", "wrong-hostname", "contact"],
    ["issued for another action", "wrong-action", "contact"],
    ["issued for the newsletter", "pass", "newsletter"],
    ["for a request siteverify cannot read (400)", "http-400", "contact"],
  ])("refuses a token %s with 403 and stores nothing", async (_label, behaviour, action) => {
    const before = await briefFiles();
    const hooks = receiver.received.length;
    const token = standInToken(behaviour, action);
    const { response } = await postContact(app, contactForm(token));
    expect(response.status).toBe(403);
    expect(((await response.json()) as ErrorBody).error).toBe("challenge_failed");
    expect(siteverify.requestsFor(token)).toHaveLength(1);
    expect(await briefFiles()).toEqual(before);
    expect(receiver.received.length).toBe(hooks);
  });

  it("refuses a token the second time it is used", async () => {
    const token = standInToken("pass", "contact");
    expect((await postContact(app, contactForm(token))).response.status).toBe(200);
    const before = await briefFiles();
    const { response } = await postContact(app, contactForm(token));
    expect(response.status).toBe(403);
    expect(await briefFiles()).toEqual(before);
  });

  it("checks fields first: a 422 does not spend the token, which then passes", async () => {
    const token = standInToken("pass", "contact");
    const { response } = await postContact(app, contactForm(token, { email: "not-an-address" }));
    expect(response.status).toBe(422);
    expect(Object.keys(((await response.json()) as ErrorBody).fields ?? {})).toEqual(["email"]);
    expect(siteverify.requestsFor(token)).toEqual([]);
    expect((await postContact(app, contactForm(token))).response.status).toBe(200);
  });

  it.each<SiteverifyBehaviour>(["error-500", "hang", "reset"])(
    "fails open when siteverify answers %s: stored as unavailable within the bound, retried once with the same key",
    async (behaviour) => {
      const token = standInToken(behaviour, "contact");
      const address = nextAddress();
      const { response, ms } = await postContact(app, contactForm(token), address);
      expect(response.status).toBe(200);
      expect(ms).toBeLessThan(FAIL_OPEN_BOUND_MS);
      const { reference } = (await response.json()) as { reference: string };
      expect(await readBriefJson(inbox, reference)).toMatchObject({ verification: "unavailable" });

      const asked = siteverify.requestsFor(token);
      expect(asked).toHaveLength(2);
      expect(asked[1]?.idempotencyKey).toBe(asked[0]?.idempotencyKey);

      expect(JSON.parse(receiver.forReference(reference)[0]?.body ?? "{}")).toMatchObject({
        verification: "unavailable",
      });
      const [mail] = smtp.forReference(reference);
      expect(mail?.parsed.text).toMatch(
        /^Human check: not done\. Cloudflare Turnstile could not be reached, so this brief was let through unchecked\.$/m,
      );
      expect(mail?.parsed.html).toContain("Human check: not done.");

      // One warning per 10 s while siteverify fails: the first of these cases logs it.
      await expect
        .poll(() => app.output())
        .toMatch(
          /\[verification\] siteverify (answered HTTP 500|did not answer within \d+ ms); \d+ request\(s\) let through unchecked/,
        );
      const lines = app
        .output()
        .split("\n")
        .filter((line) => line.includes("[verification]"));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toContain(address);
        expect(line).not.toContain(token);
        expect(line).not.toContain(SECRET);
      }
    },
  );

  it("sends a browser without JavaScript back to the form with the message, nothing typed in the URL", async () => {
    const before = await briefFiles();
    const { response } = await postContact(app, contactForm(null), nextAddress(), { accept: "text/html" });
    expect(response.status).toBe(303);
    const location = response.headers.get("location") ?? "";
    expect(location).toBe("/contact?error=challenge_failed#contact");
    expect(await briefFiles()).toEqual(before);

    const page = await (await fetch(`${app.url}${location}`)).text();
    expect(page).toContain(MESSAGE);
  });

  it("keeps the honeypot: a filled one with a good token is filed as spam, without a token it is 403", async () => {
    const token = standInToken("pass", "contact");
    const { response } = await postContact(app, contactForm(token, { website: "https://spam.example" }));
    expect(response.status).toBe(200);
    const { reference, forwarded } = (await response.json()) as { reference: string; forwarded: string[] };
    expect(forwarded).toEqual([]);
    const files = await listInbox(inbox);
    expect(files.some((file) => file.startsWith("spam/") && file.endsWith(`/${reference}/brief.json`))).toBe(
      true,
    );

    const before = await briefFiles();
    const refused = await postContact(app, contactForm(null, { website: "https://spam.example" }));
    expect(refused.response.status).toBe(403);
    expect(await briefFiles()).toEqual(before);
  });

  it("subscribes with a token that passes, recording passed", async () => {
    const email = freshEmail();
    const token = standInToken("pass", "newsletter");
    const response = await postNewsletter(app, { email, topics: ["AI"], "cf-turnstile-response": token });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });
    expect(await readSubscriber(inbox, email)).toMatchObject({
      email,
      topics: ["AI"],
      verification: "passed",
    });
  });

  it.each<[string, SiteverifyBehaviour | null, string]>([
    ["no token", null, "newsletter"],
    ["a refused token", "fail", "newsletter"],
    ["a token for the contact form", "pass", "contact"],
    ["a token from another site", "wrong-hostname", "newsletter"],
  ])("refuses a subscription with %s: 403, no record", async (_label, behaviour, action) => {
    const email = freshEmail();
    const body =
      behaviour === null ? { email } : { email, "cf-turnstile-response": standInToken(behaviour, action) };
    const response = await postNewsletter(app, body);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ ok: false, error: "challenge_failed", message: MESSAGE });
    await expect(readSubscriber(inbox, email)).rejects.toThrow(/ENOENT/);
  });

  it("refuses an invalid address with 422 before asking siteverify", async () => {
    const token = standInToken("pass", "newsletter");
    const response = await postNewsletter(app, { email: "nope", "cf-turnstile-response": token });
    expect(response.status).toBe(422);
    expect(siteverify.requestsFor(token)).toEqual([]);
  });

  it("subscribes as unavailable within the bound when siteverify hangs", async () => {
    const email = freshEmail();
    const token = standInToken("hang", "newsletter");
    const startedAt = Date.now();
    const response = await postNewsletter(app, { email, "cf-turnstile-response": token });
    expect(response.status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(FAIL_OPEN_BOUND_MS);
    expect(await readSubscriber(inbox, email)).toMatchObject({ verification: "unavailable" });
    expect(siteverify.requestsFor(token)).toHaveLength(2);
  });

  it("sends the footer form posted without JavaScript back with the message, and keeps no record", async () => {
    const email = freshEmail();
    const response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      body: new URLSearchParams({ email, topics: "AI" }).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "x-forwarded-for": nextAddress(),
      },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/newsletter?error=challenge_failed");
    await expect(readSubscriber(inbox, email)).rejects.toThrow(/ENOENT/);
    const page = await (await fetch(`${app.url}/newsletter?error=challenge_failed`)).text();
    expect(page).toContain(MESSAGE);
  });

  it("answers an upload token request 404 upload_unavailable before any check, as without Turnstile", async () => {
    const response = await fetch(`${app.url}/api/contact/upload`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as ErrorBody).error).toBe("upload_unavailable");
  });

  it("shows the human check in the ops tool's list, show, CSV and subscribers", async () => {
    const passed = standInToken("pass", "contact");
    const failedOpen = standInToken("error-500", "contact");
    const references: string[] = [];
    for (const [token, name] of [
      [passed, "Checked Person"],
      [failedOpen, "Unchecked Person"],
    ] as const) {
      const { response } = await postContact(app, contactForm(token, { name }));
      references.push(((await response.json()) as { reference: string }).reference);
    }
    const [checked = "", unchecked = ""] = references;
    const env = { INBOX_DIR: inbox };

    const list = await runInbox(["list"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/HUMAN CHECK\s+STATUS\s+ACK\s+DELIVERY/);
    expect(list.stdout.split("\n").find((line) => line.startsWith(checked))).toMatch(/\spassed\s/);
    expect(list.stdout.split("\n").find((line) => line.startsWith(unchecked))).toMatch(/\sunavailable\s/);

    const show = await runInbox(["show", unchecked], { env });
    expect(show.stdout).toContain(
      "Human check   unavailable: Turnstile could not be reached, let through unchecked\n",
    );

    const csv = await runInbox(["export", "--format", "csv"], { env });
    const [header = "", ...rows] = csv.stdout.split("\r\n");
    const column = header.split(",").indexOf("verification");
    expect(column).toBeGreaterThan(0);
    const cell = (reference: string) => rows.find((row) => row.startsWith(reference))?.split(",")[column];
    expect(cell(checked)).toBe("passed");
    expect(cell(unchecked)).toBe("unavailable");

    const subscribers = await runInbox(["subscribers", "--csv"], { env });
    expect(subscribers.stdout.split("\r\n")[0]).toBe(
      "email,status,topics,subscribedAt,updatedAt,confirmedAt,unsubscribedAt,verification",
    );
    expect(subscribers.stdout).toMatch(/,passed\r\n/);
  });
});

describe("Turnstile on the Blob inbox", () => {
  let blob: BlobStandIn;
  let app: AppServer;
  const savedApiUrl = process.env.VERCEL_BLOB_API_URL;

  beforeAll(async () => {
    blob = await startBlobStandIn();
    process.env.VERCEL_BLOB_API_URL = blob.apiUrl;
    app = await startApp({
      ...blobEnv(blob.token, blob.origin),
      ...turnstileEnv(),
      CONTACT_RATE_LIMIT: "1000/1m",
      UPLOAD_RATE_LIMIT: "1000/1m",
    });
  });

  afterAll(async () => {
    await app?.stop();
    await blob?.close();
    if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
    else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
  });

  const objects = () => [...blob.objects.keys()].filter((path) => !path.startsWith("newsletter/")).sort();

  function requestUploadToken(pathname: string, token: string | null) {
    return fetch(`${app.url}/api/contact/upload`, {
      method: "POST",
      body: JSON.stringify({
        type: "blob.generate-client-token",
        payload: { pathname, clientPayload: null, multipart: false },
        ...(token === null ? {} : { "cf-turnstile-response": token }),
      }),
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
    });
  }

  /** What the form does: a token (action upload), the upload, then the brief (action contact). */
  async function stage(bytes: Uint8Array, name: string): Promise<string> {
    const pathname = stagedUploadPath(newStagingId(), name);
    const response = await requestUploadToken(pathname, standInToken("pass", "upload"));
    expect(response.status).toBe(200);
    const { clientToken } = (await response.json()) as { clientToken: string };
    const result = await clientPut(pathname, new Blob([bytes as Uint8Array<ArrayBuffer>]), {
      access: "private",
      token: clientToken,
      contentType: declaredUploadType(name) ?? undefined,
    });
    return result.pathname;
  }

  it.each<[string, SiteverifyBehaviour | null, string]>([
    ["no token", null, "upload"],
    ["a refused token", "fail", "upload"],
    ["the contact form's token", "pass", "contact"],
  ])("issues no upload token for %s: 403 challenge_failed", async (_label, behaviour, action) => {
    const response = await requestUploadToken(
      stagedUploadPath(newStagingId(), "brief.pdf"),
      behaviour === null ? null : standInToken(behaviour, action),
    );
    expect(response.status).toBe(403);
    const body = (await response.json()) as ErrorBody & { clientToken?: string };
    expect(body).toEqual({ ok: false, error: "challenge_failed", message: MESSAGE });
  });

  it("checks the path first: a 422 does not spend the token", async () => {
    const token = standInToken("pass", "upload");
    const response = await requestUploadToken("elsewhere/brief.pdf", token);
    expect(response.status).toBe(422);
    expect(siteverify.requestsFor(token)).toEqual([]);
  });

  it("issues an upload token when siteverify is down (fail open), within the bound", async () => {
    const startedAt = Date.now();
    const response = await requestUploadToken(
      stagedUploadPath(newStagingId(), "brief.pdf"),
      standInToken("error-500", "upload"),
    );
    expect(response.status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(FAIL_OPEN_BOUND_MS);
  });

  it("stores a brief with a file uploaded ahead, each step with its own token, as passed", async () => {
    const pdf = makePdf("Blob brief");
    const staged = await stage(pdf, "brief.pdf");
    const { response } = await postContact(
      app,
      contactForm(standInToken("pass", "contact"), { briefUpload: staged }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const path = objects().find((object) => object.endsWith(`/${reference}/brief.json`)) ?? "";
    const record = JSON.parse(blob.objects.get(path)?.body.toString("utf8") ?? "{}") as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ verification: "passed", attachment: { size: pdf.byteLength } });
    expect(blob.objects.has(staged)).toBe(false);
  });

  it("stores nothing when the brief's own check fails, and leaves the upload unclaimed", async () => {
    const staged = await stage(makePdf("Refused brief"), "brief.pdf");
    const before = objects();
    const { response } = await postContact(
      app,
      contactForm(standInToken("fail", "contact"), { briefUpload: staged }),
    );
    expect(response.status).toBe(403);
    expect(objects()).toEqual(before);
    expect(blob.objects.has(staged)).toBe(true);
  });

  it("subscribes with a token, recording passed in the Blob store", async () => {
    const email = freshEmail();
    const response = await postNewsletter(app, {
      email,
      "cf-turnstile-response": standInToken("pass", "newsletter"),
    });
    expect(response.status).toBe(200);
    const key = subscriberFile("", email).replace(/^\//, "");
    const record = JSON.parse(blob.objects.get(key)?.body.toString("utf8") ?? "{}") as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ email, verification: "passed" });
  });
});

describe("configuration at start", () => {
  it.each([
    [{ TURNSTILE_SECRET_KEY: SECRET }, "TURNSTILE_SITE_KEY"],
    [{ TURNSTILE_SITE_KEY: SITE_KEY }, "TURNSTILE_SECRET_KEY"],
  ])("refuses half a configuration, naming the missing variable", async (env, missing) => {
    const { code, output } = await startAppExpectingFailure(env);
    expect(code).not.toBe(0);
    expect(output).toContain(`${missing} is not set`);
    expect(output).not.toContain(SECRET);
  });
});
