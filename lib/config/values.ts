import { domainToASCII } from "node:url";
import { z } from "zod";
import { SINGLE_LINE_CONTROL } from "../format";

/**
 * The value parsers every section of the configuration shares. Each names its variable in its
 * message, so a refused start says which line of the environment to fix.
 */

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface RateLimitRule {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  /** The rule as written, e.g. `5/10m`. */
  source: string;
}

const WINDOW_UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

export function parseRateLimitRule(source: string): RateLimitRule | null {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,6})\s*([smh])\s*$/.exec(source);
  if (!match) return null;
  const limit = Number(match[1]);
  const windowMs = Number(match[2]) * WINDOW_UNITS_MS[match[3] as keyof typeof WINDOW_UNITS_MS];
  if (limit < 1 || windowMs < 1_000) return null;
  return { limit, windowMs, source: source.trim() };
}

/** An unset variable and one set to the empty string (`FOO=` in a .env file) both mean "not set". */
export const optional = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === "" ? undefined : value))
  .optional();

export const httpUrl = (variable: string) =>
  z.string().transform((value, ctx) => {
    try {
      const url = new URL(value);
      if (url.protocol === "http:" || url.protocol === "https:") return url;
    } catch {}
    ctx.addIssue({ code: "custom", message: `${variable} must be an http(s) URL, got "${value}"` });
    return z.NEVER;
  });

export const origin = (variable: string) => httpUrl(variable).transform((url) => url.origin);

/**
 * A name shown in email subjects and pages: one line of at most `max` characters, with no control
 * or bidirectional formatting character (a subject is a header line; a name must read as written).
 */
export const displayName = (variable: string, max = 80) =>
  z.string().transform((value, ctx) => {
    if (value.length <= max && !SINGLE_LINE_CONTROL.test(value)) return value;
    ctx.addIssue({
      code: "custom",
      message: `${variable} must be one line of at most ${max} characters, without control characters`,
    });
    return z.NEVER;
  });

export const rateLimitRule = (variable: string) =>
  z.string().transform((value, ctx) => {
    const rule = parseRateLimitRule(value);
    if (rule) return rule;
    ctx.addIssue({
      code: "custom",
      message: `${variable} must look like <count>/<window> with the window in s, m or h (e.g. 5/10m), got "${value}"`,
    });
    return z.NEVER;
  });

export const wholeNumber = (variable: string, min: number, max: number) =>
  z.string().transform((value, ctx) => {
    const number = Number(value);
    if (/^\d+$/.test(value) && number >= min && number <= max) return number;
    ctx.addIssue({
      code: "custom",
      message: `${variable} must be a whole number from ${min} to ${max}, got "${value}"`,
    });
    return z.NEVER;
  });

export const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

export const flag = (variable: string) =>
  z.string().transform((value, ctx) => {
    if (value === "true") return true;
    if (value === "false") return false;
    ctx.addIssue({ code: "custom", message: `${variable} must be true or false, got "${value}"` });
    return z.NEVER;
  });

/** A mailbox as nodemailer takes it: structured, so no header is ever built by concatenation. */
export interface Mailbox {
  /** Display name; empty when none was given. */
  name: string;
  address: string;
}

/** zod's address format, built once: a schema costs more to build than to run. */
const EMAIL_FORMAT = z.email();

export const isEmailAddress = (value: string) => EMAIL_FORMAT.safeParse(value).success;

/**
 * `intake@studio.example`, `Studio <intake@studio.example>` or `"Studio, Intake" <intake@...>`;
 * `null` when it is none of these or the display name holds control characters.
 */
export function parseMailbox(value: string): Mailbox | null {
  const named = /^([^<>]*)<([^<>]*)>$/.exec(value.trim());
  let name = named ? (named[1] ?? "").trim() : "";
  const address = (named ? (named[2] ?? "") : value).trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(name);
  if (quoted) name = (quoted[1] ?? "").replace(/\\(.)/g, "$1");
  else if (name.includes('"')) return null;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name) || !isEmailAddress(address)) return null;
  return { name, address };
}

/**
 * A domain name in the one form compared: punycode (`münchen.example` and `xn--mnchen-3ya.example`
 * alike), lowercased, without a trailing dot; `""` when it is no domain name at all.
 */
export function asciiDomain(value: string): string {
  return domainToASCII(value.trim().replace(/\.$/, "")).toLowerCase();
}
