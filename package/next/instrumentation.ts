/**
 * Next's `register` hook (the site's `instrumentation.ts` re-exports it): runs once when the
 * server starts, see lib/startup.ts.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startUp } = await import("@/lib/startup");
    startUp();
  }
}
