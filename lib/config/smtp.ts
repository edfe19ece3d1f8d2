import { isIPv4 } from "node:net";
import { z } from "zod";

/** `SMTP_URL` as nodemailer takes it: `smtp://` or `smtps://`, the value itself kept. */
export const smtpUrl = z.string().transform((value, ctx) => {
  try {
    const url = new URL(value);
    if (url.protocol === "smtp:" || url.protocol === "smtps:") return value;
  } catch {}
  ctx.addIssue({ code: "custom", message: `SMTP_URL must be an smtp:// or smtps:// URL` });
  return z.NEVER;
});

/**
 * How a connection to `SMTP_URL` is protected. One rule for every sender that uses the URL
 * (lib/notify/smtp.ts applies it), so that no login and no message crosses a network in cleartext:
 *
 * - `tls`: `smtps://`, TLS from the first byte.
 * - `starttls-required`: `smtp://` with credentials in the URL, or to a host that is not loopback:
 *   STARTTLS or nothing, whether the server does not offer it or an attacker strips it from its
 *   answer. Query options such as `ignoreTLS=true` cannot turn it off.
 * - `opted-out`: the same URL with `?requireTLS=false`: STARTTLS when offered, else cleartext.
 * - `starttls-optional`: a loopback relay without credentials (a local Mailpit): STARTTLS when
 *   offered, else cleartext that never leaves the machine.
 *
 * Loopback means `localhost`, 127.0.0.0/8 and `::1` as written in the URL; any other spelling
 * counts as another host (the safe side). `service` and `proxy` in the query send the connection
 * elsewhere (nodemailer reads both), so they never count as loopback either.
 */
export type SmtpTls = "tls" | "starttls-required" | "opted-out" | "starttls-optional";

export function smtpTls(smtpUrl: string): SmtpTls {
  const url = new URL(smtpUrl);
  if (url.protocol === "smtps:") return "tls";
  // The URL keeps an IPv6 host in brackets and, for a scheme it does not know, the case as written.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const loopback = host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."));
  const elsewhere = url.searchParams.has("service") || url.searchParams.has("proxy");
  const credentials = url.username !== "" || url.password !== "";
  if (loopback && !elsewhere && !credentials) return "starttls-optional";
  // Exactly the spelling nodemailer turns into `false`; anything else keeps the requirement.
  const requireTls = url.searchParams.getAll("requireTLS");
  return requireTls.length === 1 && requireTls[0] === "false" ? "opted-out" : "starttls-required";
}

/**
 * `?tls.rejectUnauthorized=false` in the URL: nodemailer hands it to Node's TLS, which then takes
 * any certificate. Exactly the spelling nodemailer turns into `false` (a single value), which is
 * the only one Node honours.
 */
export function skipsCertificateCheck(smtpUrl: string): boolean {
  const values = new URL(smtpUrl).searchParams.getAll("tls.rejectUnauthorized");
  return values.length === 1 && values[0] === "false";
}
