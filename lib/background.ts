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

/** How work is put off until the response has gone: `afterResponse`, or a test's own queue. */
export type Deferral = (task: () => Promise<unknown>, what: string) => void;

/**
 * Starts `task` only once the response has gone, so none of its work can delay the answer or show
 * in its timing (`finishInBackground`'s task has already started). Inside a request, Next's
 * `after()` calls it when the response is closed; outside one, on a later turn of the event loop.
 * A failure is logged.
 */
export const afterResponse: Deferral = (task, what) => {
  const run = () =>
    Promise.resolve()
      .then(task)
      .catch((error: unknown) => {
        console.error(`[background] ${what} failed`, error);
      });
  try {
    after(run);
  } catch {
    // Not inside a request: later in this process.
    setImmediate(() => void run());
  }
};
