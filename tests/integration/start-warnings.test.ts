import { afterEach, describe, expect, it } from "vitest";
import { type AppServer, startApp, tempDir } from "../support/server";

/** What `next start` itself says about settings that are accepted but risky. */
describe("warnings at start", () => {
  let app: AppServer | undefined;

  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it("names TRUSTED_PROXY_HOPS when the client address is read from X-Forwarded-For off Vercel", async () => {
    app = await startApp({ INBOX_DIR: await tempDir() });
    expect(app.output()).toMatch(/\[config\] TRUSTED_PROXY_HOPS=1: .*reach this server directly/);
  });

  it.each([
    ["on Vercel", { VERCEL: "1" }],
    ["with the header ignored", { TRUSTED_PROXY_HOPS: "0" }],
  ])("says nothing about it %s", async (_, env) => {
    app = await startApp({ INBOX_DIR: await tempDir(), ...env });
    expect(app.output()).not.toContain("TRUSTED_PROXY_HOPS");
  });

  it("names tls.rejectUnauthorized=false in SMTP_URL", async () => {
    app = await startApp({
      INBOX_DIR: await tempDir(),
      TRUSTED_PROXY_HOPS: "0",
      SMTP_URL: "smtps://intake:secret@127.0.0.1:1?tls.rejectUnauthorized=false",
      EMAIL_FROM: "intake@studio.example",
      EMAIL_TO: "ops@studio.example",
    });
    expect(app.output()).toMatch(/\[config\] SMTP_URL has tls\.rejectUnauthorized=false/);
  });
});
