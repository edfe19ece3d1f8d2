/** Wording shared by the server's messages and the forms (no server-only imports). */

/** A wait in whole seconds, as a person says it: "45 seconds", "10 minutes". */
export function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** A size in bytes, in the largest unit that keeps it above 1: "10 MB", "16 KB", "512 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/**
 * A count with its noun in the right number: "1 brief", "0 briefs", "12 entries". `plural` is
 * for nouns that do not just add an "s".
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
