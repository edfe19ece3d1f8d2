import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { subscribe, subscriberId, type SubscriberRecord } from "../../lib/newsletter";
import { parseSubscriberFilter, readSubscriberIndex, readSubscribers, subscriberPage } from "../../lib/ops";
import { SETTLED_MS } from "../../lib/ops/subscriber-index";
import { NEWSLETTER_TOPICS } from "../../lib/schemas/newsletter";
import { FilesystemStore } from "../../lib/store/filesystem";
import { countingCalls } from "./stored-briefs";

/**
 * The inbox's `/inbox/subscribers` at scale (issue 45): the same lib/ops code the page runs
 * (readSubscriberIndex, then subscriberPage: a page of 50 with the counts per status and topic),
 * over `count` subscriber records on the filesystem inbox. Measured: reading every record (what a
 * view would cost without the index), the first view (the index built from every record), warm
 * views (median of three: the first page, a filtered deep page), the first view after new
 * subscriptions (their change marks read in), and the view that folds settled marks into the index.
 */

const STATUSES: SubscriberRecord["status"][] = [
  "confirmed",
  "confirmed",
  "confirmed",
  "pending",
  "unsubscribed",
];
/** The issue's target: a page of 50 from 50,000 subscribers under 1 s on the filesystem inbox. */
export const SUBSCRIBERS_PAGE_TARGET_MS = 1_000;
const ARRIVALS = 20;

function record(index: number, count: number): SubscriberRecord {
  const at = new Date(Date.UTC(2026, 0, 1) + Math.floor((index * 300 * 86_400_000) / count)).toISOString();
  const status = STATUSES[index % STATUSES.length]!;
  return {
    email: `reader${index}@list${index % 97}.example`,
    topics: NEWSLETTER_TOPICS.filter((_, topic) => (index >> topic) % 3 === 0),
    status,
    subscribedAt: at,
    updatedAt: at,
    confirmedAt: status === "pending" ? null : at,
    unsubscribedAt: status === "unsubscribed" ? at : null,
    verification: "off",
    consent: { at, method: "single", page: "/", site: "same-origin", ipHash: null, verification: "off" },
    revision: index.toString(16).padStart(32, "0"),
  };
}

/** Writes `count` records as the filesystem inbox keeps them (the bench measures reading, not this). */
export async function writeSubscribersTo(dir: string, count: number): Promise<void> {
  const folder = join(dir, "newsletter", "subscribers");
  await mkdir(folder, { recursive: true });
  for (let index = 0; index < count; index++) {
    const subscriber = record(index, count);
    await writeFile(
      join(folder, `${subscriberId(subscriber.email)}.json`),
      `${JSON.stringify(subscriber, null, 2)}\n`,
    );
  }
}

interface Row {
  what: string;
  ms: number;
  /** CPU time of this process: on a loaded machine, what the work itself costs. */
  cpuMs: number;
  calls: number;
  detail: string;
}

export async function measureSubscribers(dir: string, count: number): Promise<void> {
  const { store, calls } = countingCalls(new FilesystemStore(dir));
  const timed = async (what: string, work: () => Promise<string>): Promise<Row> => {
    const before = calls();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const detail = await work();
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    return { what, ms: performance.now() - started, cpuMs, calls: calls() - before, detail };
  };
  const median = async (what: string, work: () => Promise<string>): Promise<Row> => {
    const runs = [await timed(what, work), await timed(what, work), await timed(what, work)];
    return runs.sort((a, b) => a.ms - b.ms)[1]!;
  };
  // A fold is written after the view has answered (Next's after()): kept here to be timed on its own.
  const folds: (() => Promise<unknown>)[] = [];
  const defer = (task: () => Promise<unknown>) => void folds.push(task);
  const view =
    (query: Record<string, string>, page = 1, now?: Date) =>
    async () => {
      const result = subscriberPage(
        await readSubscriberIndex(store, { now, defer }),
        parseSubscriberFilter(query),
        page,
      );
      return `${result.subscribers.length} of ${result.total}, page ${result.page} of ${result.pages}; confirmed ${result.statusCounts.confirmed}, AI ${result.topicCounts.AI}`;
    };
  const rows = [
    await timed("every record read (the view without an index)", async () => {
      const all = await readSubscribers(store);
      return `${all.length} records`;
    }),
    await timed("first view (index built from every record)", view({})),
    await median(`subscribers page, ${count}, warm`, view({})),
    await median("confirmed + AI, page 10, warm", view({ status: "confirmed", topic: "AI" }, 10)),
  ];
  for (let index = 0; index < ARRIVALS; index++) {
    await subscribe(store, { email: `new${index}@arrivals.example`, topics: ["AI"] });
  }
  rows.push(await timed(`page after ${ARRIVALS} subscriptions (marks read in)`, view({})));
  rows.push(
    await timed(
      "page folding settled marks into the index",
      view({}, 1, new Date(Date.now() + SETTLED_MS + 1)),
    ),
  );
  rows.push(
    await timed("the fold, written after that view's answer", async () => {
      for (const fold of folds.splice(0)) await fold();
      return "index rewritten, settled marks removed";
    }),
  );
  rows.push(await timed("page, warm again", view({})));

  console.log(`\nSubscribers, filesystem inbox (${count} records)`);
  for (const row of rows) {
    const callText = row.calls > 0 ? `${row.calls} calls` : "";
    console.log(
      `  ${row.what.padEnd(52)} ${row.ms.toFixed(0).padStart(7)} ms ${`cpu ${row.cpuMs.toFixed(0)} ms`.padStart(14)} ${callText.padStart(12)}   ${row.detail}`,
    );
  }
  const worst = Math.max(...rows.filter((row) => /^(subscribers )?page/.test(row.what)).map((row) => row.ms));
  console.log(
    `  target: subscribers page, ${count} ${worst < SUBSCRIBERS_PAGE_TARGET_MS ? "met" : "MISSED"} (${worst.toFixed(0)} ms < ${SUBSCRIBERS_PAGE_TARGET_MS} ms, the slowest page after the first view)`,
  );
}
