import { after } from "next/server";

/**
 * Lets `task` finish after the response has gone. Inside a request, Next's `after()` keeps the
 * function alive for it (on Vercel, an instance may otherwise be frozen as soon as the response
 * is sent); outside one (the ops tool, tests calling the library directly) the promise simply
 * runs on in this process. `task` must handle its own failures: a rejection here is only logged.
 */
export function finishInBackground(task: Promise<unknown>, what: string): void {
  const settled = task.catch((error: unknown) => {
    console.error(`[background] ${what} failed`, error);
  });
  try {
    after(() => settled);
  } catch {
    // Not inside a request: nothing to extend.
  }
}
