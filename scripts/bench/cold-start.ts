import { briefForm, validBrief } from "../../tests/support/contact";
import { type AppServer, startApp, tempDir } from "../../tests/support/server";
import { median } from "./runs";
import { multipart, nextAddress } from "./traffic";

/**
 * Cold start: what a visitor waits for when a serverless function has gone cold. Each route's first
 * request goes to a freshly started `next start` (embedded defaults) as soon as it says it is
 * ready, before any route has been loaded; the time to its whole answer is compared with
 * `GET /api/health`'s on an identical fresh server. The servers alternate route by route, so a
 * busier moment of the machine falls on all three alike.
 */

export type ColdRoute = "health" | "contact" | "newsletter";

export interface ColdStartRun {
  route: ColdRoute;
  status: number;
  firstAnswerMs: number;
}

export interface ColdStartSummary {
  runs: ColdStartRun[];
  /** Median first answer per route, in ms. */
  medianMs: Record<ColdRoute, number>;
  /** Each form post's median over health's. */
  vsHealth: { contact: number; newsletter: number };
}

async function firstAnswer(app: AppServer, route: ColdRoute): Promise<ColdStartRun> {
  const started = performance.now();
  let response: Response;
  if (route === "health") {
    response = await fetch(`${app.url}/api/health`);
  } else if (route === "contact") {
    const { body, contentType } = await multipart(briefForm(validBrief()));
    response = await fetch(`${app.url}/api/contact`, {
      method: "POST",
      headers: { "content-type": contentType, "x-forwarded-for": nextAddress() },
      body: new Uint8Array(body),
    });
  } else {
    response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
      body: JSON.stringify({ email: `cold-${Date.now()}@bench.example`, topics: ["AI"] }),
    });
  }
  await response.arrayBuffer();
  return { route, status: response.status, firstAnswerMs: performance.now() - started };
}

export async function measureColdStart(runs: number, inboxes: string[]): Promise<ColdStartSummary> {
  const measured: ColdStartRun[] = [];
  for (let run = 0; run < runs; run++) {
    for (const route of ["health", "contact", "newsletter"] as const) {
      const inbox = await tempDir("intake-cold-");
      inboxes.push(inbox);
      const app = await startApp({ INBOX_DIR: inbox, IP_HASH_SALT: "bench" }, { readiness: "ready" });
      try {
        const result = await firstAnswer(app, route);
        measured.push(result);
        console.log(`  ${route}: ${result.status} after ${result.firstAnswerMs.toFixed(0)} ms`);
      } finally {
        await app.stop();
      }
    }
  }
  const medianOf = (route: ColdRoute) =>
    median(measured.filter((each) => each.route === route).map((each) => each.firstAnswerMs));
  const medianMs = {
    health: medianOf("health"),
    contact: medianOf("contact"),
    newsletter: medianOf("newsletter"),
  };
  return {
    runs: measured,
    medianMs,
    vsHealth: {
      contact: medianMs.contact / medianMs.health,
      newsletter: medianMs.newsletter / medianMs.health,
    },
  };
}
