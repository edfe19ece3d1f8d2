import type { z } from "zod";
import { InboxRecordError } from "./errors";

/** A stored object's bytes as JSON; `InboxRecordError` naming the path when they are not. */
export function parseJson(path: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new InboxRecordError(`${path} is not valid JSON`);
  }
}

/** `value` checked against `schema`; `InboxRecordError` naming the path and the first bad field. */
export function check<T>(path: string, schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (${issue.path.join(".")})` : "";
  throw new InboxRecordError(`${path} is not ${what}${where}`);
}
