import type { ConfigReader } from "./reader";
import { skipsCertificateCheck, smtpTls, smtpUrl } from "./smtp";
import type { Config } from "./types";
import { httpUrl, isEmailAddress, list, parseMailbox } from "./values";

/** The channels that tell ops about a brief (webhook, email), and the SMTP and sender emails share. */

/**
 * `WEBHOOK_SECRET` is read exactly as the `standardwebhooks` package reads it, on both ends: an
 * optional `whsec_` prefix, then standard padded base64 of the key bytes. A secret that does not
 * decode (a bare passphrase) is refused at start rather than used as raw bytes: a receiver passing
 * the same string to `new Webhook(secret)` could never verify what we signed with it.
 */
const WEBHOOK_SECRET_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The Standard Webhooks specification asks for 24 to 64 random bytes. */
const WEBHOOK_SECRET_MIN_BYTES = 24;

/** Decoded key length of a well-formed secret, or `null` when the library could not decode it. */
export function webhookSecretBytes(secret: string): number | null {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (base64 === "" || !WEBHOOK_SECRET_BASE64.test(base64)) return null;
  return (base64.length / 4) * 3 - (base64.match(/=/g)?.length ?? 0);
}

/** `WEBHOOK_URL` and its signing secret: the webhook channel, or `null` when it is not set up. */
export function parseWebhook({ raw, problems, warnings, read }: ConfigReader): Config["webhook"] {
  let webhook: Config["webhook"] = null;
  if (raw.WEBHOOK_URL) {
    const url = read(raw.WEBHOOK_URL, httpUrl("WEBHOOK_URL"), null);
    const secret = raw.WEBHOOK_SECRET ?? null;
    const secretBytes = secret === null ? null : webhookSecretBytes(secret);
    if (secret !== null && secretBytes === null) {
      problems.push(
        "WEBHOOK_SECRET must be a Standard Webhooks secret: whsec_ followed by base64 (e.g. whsec_$(openssl rand -base64 32))",
      );
    } else if (secretBytes !== null && secretBytes < WEBHOOK_SECRET_MIN_BYTES) {
      warnings.push(
        `WEBHOOK_SECRET is ${secretBytes} bytes; Standard Webhooks asks for 24 to 64 random bytes`,
      );
    }
    if (url) webhook = { url: url.href, secret };
  } else if (raw.WEBHOOK_SECRET) {
    warnings.push("WEBHOOK_SECRET is set without WEBHOOK_URL: the webhook channel is not configured");
  }
  return webhook;
}

/**
 * `SMTP_URL`, `EMAIL_FROM` and `EMAIL_TO`: the email channel to ops (all three), and the sender
 * emails to visitors use (the first two). `visitorEmailFeatures` names the features turned on that
 * email visitors, each of which needs `SMTP_URL` and `EMAIL_FROM`.
 */
export function parseEmail(
  { raw, problems, warnings, read }: ConfigReader,
  visitorEmailFeatures: readonly string[],
): Pick<Config, "email" | "visitorEmail"> {
  let email: Config["email"] = null;
  const emailVariables = { SMTP_URL: raw.SMTP_URL, EMAIL_FROM: raw.EMAIL_FROM, EMAIL_TO: raw.EMAIL_TO };
  const missingEmail = Object.entries(emailVariables).filter(([, value]) => !value);
  // Checked whenever set, like WEBHOOK_URL: a malformed value stops the start even before the
  // channel's other variables are filled in.
  const smtp = read(raw.SMTP_URL, smtpUrl, null);
  if (smtp && skipsCertificateCheck(smtp)) {
    warnings.push(
      "SMTP_URL has tls.rejectUnauthorized=false: the SMTP server's certificate is not checked, so anyone on the way can pose as the server and read the login and every email",
    );
  }
  const from = raw.EMAIL_FROM ? parseMailbox(raw.EMAIL_FROM) : null;
  const emailsSomeone = visitorEmailFeatures.length > 0 || Boolean(raw.OPS_EMAILS);
  if (raw.EMAIL_FROM && !from && (missingEmail.length === 0 || emailsSomeone)) {
    problems.push(
      `EMAIL_FROM must be an address, optionally with a display name (Studio <intake@studio.example>), got "${raw.EMAIL_FROM}"`,
    );
  }
  for (const feature of visitorEmailFeatures) {
    const missing = ["SMTP_URL", "EMAIL_FROM"].filter((name) => !raw[name as "SMTP_URL" | "EMAIL_FROM"]);
    if (missing.length > 0) {
      problems.push(
        `${feature} emails visitors, so it needs SMTP_URL and EMAIL_FROM: ${missing.join(" and ")} not set`,
      );
    }
  }
  if (missingEmail.length === 0) {
    const to = list(raw.EMAIL_TO ?? "");
    const invalidTo = to.filter((address) => !isEmailAddress(address));
    if (to.length === 0) problems.push("EMAIL_TO must list at least one address");
    else if (invalidTo.length > 0) {
      problems.push(`EMAIL_TO must be a comma-separated list of addresses; not one: ${invalidTo.join(", ")}`);
    }
    if (smtp && from && to.length > 0 && invalidTo.length === 0) email = { smtpUrl: smtp, from, to };
    if (smtp && smtpTls(smtp) === "opted-out") {
      warnings.push(
        "SMTP_URL has requireTLS=false: the SMTP login and every brief go in cleartext whenever the server does not offer STARTTLS (or someone on the way strips it)",
      );
    }
  } else if (missingEmail.length < 3) {
    warnings.push(
      `The email channel is not configured: ${missingEmail.map(([name]) => name).join(", ")} not set`,
    );
  }
  return { email, visitorEmail: smtp && from ? { smtpUrl: smtp, from } : null };
}
