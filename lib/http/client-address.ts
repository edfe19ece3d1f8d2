import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { isIP } from "node:net";

/**
 * A client address as it is ever stored: HMAC-SHA256 with `IP_HASH_SALT` (hex), the same for a
 * brief's `client.ipHash` and a subscriber's consent; `null` when the address is unknown.
 */
export function hashClientAddress(address: string | null, salt: string): string | null {
  return address === null ? null : createHmac("sha256", saltKey(salt)).update(address).digest("hex");
}

/** The salt as a key, made once (a process has one salt), not converted again on every request. */
let lastSalt: { salt: string; key: KeyObject } | null = null;

function saltKey(salt: string): KeyObject {
  if (lastSalt?.salt !== salt) lastSalt = { salt, key: createSecretKey(salt, "utf8") };
  return lastSalt.key;
}

/**
 * The client's address as the trusted proxies saw it: the entry `hops` places from the right of
 * `X-Forwarded-For` (1: the right-most, which Vercel and a single reverse proxy append). With
 * `hops` 0 the header is ignored; with no usable entry the address is `null` (unknown).
 */
export function clientAddress(headers: Headers, hops: number): string | null {
  if (hops < 1) return null;
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return null;
  // A shorter chain than configured: the left-most entry is the furthest hop anyone vouched for.
  const entry = entries[Math.max(entries.length - hops, 0)];
  return entry === undefined ? null : normalizeAddress(entry);
}

/** An address without port, brackets or zone, IPv4-mapped IPv6 as IPv4; `null` when not an IP. */
export function normalizeAddress(raw: string): string | null {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  address = address.replace(/%.*$/, "").toLowerCase();

  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  const groups = expandIPv6(address);
  if (isIPv4Mapped(groups)) {
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return groups.map((group) => group.toString(16)).join(":");
}

/**
 * The key a client is counted under: an IPv4 address as is, an IPv6 address by its /64 prefix
 * (one host usually holds a whole /64), and every unknown client in one shared bucket.
 */
export function rateLimitSubject(raw: string | null): string {
  const address = raw === null ? null : normalizeAddress(raw);
  if (address === null) return "unknown";
  if (isIP(address) !== 6) return address;
  const groups = expandIPv6(address);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

function isIPv4Mapped(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

/** Eight 16-bit groups of a valid IPv6 address (dotted IPv4 tails included). */
function expandIPv6(address: string): number[] {
  let text = address;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}
