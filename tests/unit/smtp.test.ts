import { createTransport } from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import { describe, expect, it } from "vitest";
import { smtpReplyCodeOf, smtpTransportOptions } from "@/lib/notify/smtp";

/** The options nodemailer's SMTP transport really ends up with, after its own merging. */
function effectiveOptions(smtpUrl: string) {
  const mailer = createTransport(smtpTransportOptions(smtpUrl, 1_000));
  return (mailer.transporter as SMTPPool).options;
}

describe("smtpTransportOptions", () => {
  it.each([
    "smtp://user:pass@mail.example:587",
    "smtp://mail.example:25",
    "smtp://user:pass@mail.example:587?ignoreTLS=true",
    "smtp://user:pass@mail.example:587?ignoreTLS=true&opportunisticTLS=true",
    "smtp://user:pass@mail.example:587?requireTLS=0",
    "smtp://mail.example:25?service=gmail",
    // A URL in the query is not followed: nodemailer would read it over everything else.
    "smtp://user:pass@mail.example:587?url=smtp%3A%2F%2Fmail.example%3A587%3FignoreTLS%3Dtrue",
  ])("%s: STARTTLS required, whatever the query says", (url) => {
    expect(effectiveOptions(url)).toMatchObject({
      requireTLS: true,
      ignoreTLS: false,
      opportunisticTLS: false,
    });
  });

  it("keeps what the URL says about the server and the login", () => {
    expect(
      effectiveOptions(
        "smtp://us%40er:p%3Ass@mail.example:587?name=intake.studio.example&tls.rejectUnauthorized=false",
      ),
    ).toMatchObject({
      host: "mail.example",
      port: 587,
      secure: false,
      auth: { user: "us@er", pass: "p:ss" },
      name: "intake.studio.example",
      tls: { rejectUnauthorized: false },
    });
  });

  it("leaves a loopback relay without credentials, the opt-out and smtps:// as nodemailer reads them", () => {
    expect(effectiveOptions("smtp://127.0.0.1:1025")).not.toHaveProperty("requireTLS");
    expect(effectiveOptions("smtp://127.0.0.1:1025?ignoreTLS=true")).toMatchObject({ ignoreTLS: true });
    expect(effectiveOptions("smtp://user:pass@mail.example:587?requireTLS=false")).toMatchObject({
      requireTLS: false,
    });
    const smtps = effectiveOptions("smtps://user:pass@mail.example:465?requireTLS=false");
    expect(smtps).toMatchObject({ secure: true, host: "mail.example", port: 465 });
  });

  it("bounds every phase and the pool, and keeps files and URLs out of messages, whatever the query says", () => {
    expect(
      effectiveOptions(
        "smtp://127.0.0.1:1025?socketTimeout=600000&disableFileAccess=false&disableUrlAccess=false&pool=false&maxConnections=100",
      ),
    ).toMatchObject({
      pool: true,
      maxConnections: 8,
      connectionTimeout: 1_000,
      greetingTimeout: 1_000,
      socketTimeout: 1_000,
      dnsTimeout: 1_000,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  });
});

describe("smtpReplyCodeOf", () => {
  it.each<[unknown, number | undefined]>([
    ["250 2.0.0 Ok: queued as 4FkQ9", 250],
    ["250 OK", 250],
    ["251", 251],
    ["2500 not a code", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("%j -> %s", (response, code) => {
    expect(smtpReplyCodeOf({ response })).toBe(code);
  });
});
