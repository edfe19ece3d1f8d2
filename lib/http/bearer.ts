import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether the request's `Authorization` is `Bearer <secret>`. Compared through SHA-256 digests in
 * constant time, so neither the secret's length nor its first differing character shows in the
 * time the answer takes.
 */
export function hasBearer(request: Request, secret: string): boolean {
  const given = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(secret)) && given.length > 0;
}
