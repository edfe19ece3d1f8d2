/**
 * npm run bench [-- --duration 10 --rounds 5 --connections 32 --uploads 16 --build --skip-throughput --skip-memory --skip-inbox]
 *
 * Measures the built app under `next start` on its embedded defaults (filesystem inbox in a temporary
 * directory, in-memory limits set very high): throughput and latency of each endpoint beside the
 * framework's floor (GET /api/health), both forms again with Turnstile, the acknowledgment and double
 * opt-in on (siteverify and SMTP stand-ins in this process, every email counted), the server's peak
 * memory under concurrent 10 MiB uploads, and
 * how much of a declared 100 MiB body is read before the 413. Prints a table and writes
 * bench/results.json. Everything is bounded: fixed durations, fixed request counts, time limits.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon, { type Request as CannonRequest, type Result } from "autocannon";
import { briefForm, validBrief } from "../tests/support/contact";
import { makeFileOfSize, makePdf, TEN_MIB } from "../tests/support/files";
import { blobEnv } from "../tests/support/blob-app";
import { startBlobStandIn } from "../tests/support/blob-standin";
import { type AppServer, startApp, tempDir } from "../tests/support/server";
import { type SiteverifyStandIn, startSiteverifyStandIn } from "../tests/support/siteverify-standin";
import { type SmtpTestServer, startSmtpServer } from "../tests/support/smtp";
import { bytesRead, cpuMilliseconds, listeningPid, residentMemory, resetPeakMemory } from "./bench/proc";

const KiB = 1024;
const MiB = 1024 * KiB;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "5" },
    uploads: { type: "string", default: "16" },
    build: { type: "boolean", default: false },
    "skip-throughput": { type: "boolean", default: false },
    "skip-memory": { type: "boolean", default: false },
    "skip-inbox": { type: "boolean", default: false },
    output: { type: "string", default: "bench/results.json" },
  },
});

function wholeNumber(name: string, value: string, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) {
    console.error(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
    process.exit(2);
  }
  return number;
}
const duration = wholeNumber("duration", flags.duration, 120);
const connections = wholeNumber("connections", flags.connections, 512);
const rounds = wholeNumber("rounds", flags.rounds, 60);
const uploads = wholeNumber("uploads", flags.uploads, 64);
if (duration % rounds !== 0) {
  console.error(`--duration (${duration}) must be a multiple of --rounds (${rounds})`);
  process.exit(2);
}

/** Embedded defaults, except limits high enough never to answer 429 during a run. */
const SERVER_ENV = {
  CONTACT_RATE_LIMIT: "999999999/1h",
  NEWSLETTER_RATE_LIMIT: "999999999/1h",
  IP_HASH_SALT: "bench",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let addressCounter = 0;
/** A distinct client address per request (10.0.0.0/8), as real traffic comes from many clients. */
function nextAddress(): string {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

/** A multipart body as a browser's FormData serialises it, with its Content-Type (and boundary). */
async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request("http://bench.invalid/", { method: "POST", body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get("content-type") ?? "",
  };
}

function ensureBuild(): void {
  if (!flags.build && existsSync(".next/BUILD_ID")) return;
  console.log(flags.build ? "Building (--build)..." : "No build found (.next/BUILD_ID): building...");
  const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// ---------------------------------------------------------------------------------------------------
// Throughput and latency

/**
 * Which server a scenario runs against: the embedded defaults, the same with the default rate
 * limits, the Blob inbox, or the embedded defaults with part 2's features on (Turnstile, the
 * acknowledgment, double opt-in: see `featureEnv`).
 */
type ServerKind = "filesystem" | "limited" | "blob" | "features";

const TURNSTILE_SECRET = "bench-turnstile-secret";

/**
 * Part 2's features, all on: Turnstile checked against the siteverify stand-in, and the two emails
 * to visitors (each brief's acknowledgment, each new subscriber's confirmation) sent through SMTP
 * to a real SMTP server, both running in this process.
 */
function featureEnv(siteverify: SiteverifyStandIn, smtp: SmtpTestServer): Record<string, string> {
  return {
    TURNSTILE_SECRET_KEY: TURNSTILE_SECRET,
    TURNSTILE_SITE_KEY: "bench-turnstile-site-key",
    TURNSTILE_VERIFY_URL: siteverify.url,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <intake@studio.example>",
    CONTACT_ACKNOWLEDGE: "true",
    NEWSLETTER_DOUBLE_OPT_IN: "true",
    LINK_SIGNING_SECRET: "bench-link-signing-secret-of-at-least-32-characters",
  };
}

/** Where a request body carries its stamp: 12 characters, replaced by 12 digits in each copy sent. */
const STAMP = "@@@STAMP@@@@";
let stamps = 0;

/**
 * Copies of `template` with every `STAMP` replaced by the next number, so each request carries a
 * Turnstile token and a sender address of its own (siteverify refuses a token checked before, and
 * each address gets at most one email per 10 minutes). Same length as the template, no re-encoding.
 */
function stamped(template: Buffer): () => Buffer {
  const marker = Buffer.from(STAMP, "latin1");
  const offsets: number[] = [];
  for (let at = template.indexOf(marker); at !== -1; at = template.indexOf(marker, at + marker.length))
    offsets.push(at);
  if (offsets.length === 0) throw new Error("the template has no stamp");
  return () => {
    stamps += 1;
    const body = Buffer.from(template);
    const digits = String(stamps).padStart(STAMP.length, "0");
    for (const offset of offsets) body.write(digits, offset, "latin1");
    return body;
  };
}

/** The addresses the part-2 rows send to; the emails are counted by them. */
const ACKNOWLEDGED = { prefix: "sender-", domain: "@bench.example" };
const CONFIRMED = { prefix: "reader-", domain: "@bench.example" };

interface Scenario {
  name: string;
  requests: CannonRequest[];
  server: ServerKind;
  /** The status every answer should have (200, or 429 for the flood). */
  expectedStatus: number;
}

/** A running server the throughput scenarios use, with the pid whose CPU time is read. */
interface MeasuredServer {
  app: AppServer;
  pid: number;
  /** Its filesystem inbox (none for the Blob inbox). */
  inbox: string | null;
}

async function scenarios(): Promise<Scenario[]> {
  const withAddress = (request: CannonRequest): CannonRequest => ({
    ...request,
    headers: { ...request.headers, "x-forwarded-for": nextAddress() },
  });
  const plain = await multipart(briefForm(validBrief()));
  const pdf = await multipart(
    briefForm(validBrief(), {
      bytes: makeFileOfSize("pdf", MiB),
      name: "brief.pdf",
      type: "application/pdf",
    }),
  );
  const contact = (form: { body: Buffer; contentType: string }): CannonRequest => ({
    method: "POST",
    path: "/api/contact",
    headers: { "content-type": form.contentType },
    body: form.body,
    setupRequest: withAddress,
  });
  let subscriber = 0;
  const ok = { server: "filesystem", expectedStatus: 200 } as const;
  // Part 2 on: a token the stand-in passes and a sender of its own on every request.
  const verified = await multipart(
    briefForm(
      validBrief({
        email: `${ACKNOWLEDGED.prefix}${STAMP}${ACKNOWLEDGED.domain}`,
        "cf-turnstile-response": `pass.contact.${STAMP}`,
      }),
    ),
  );
  const stampedContact = (form: { body: Buffer; contentType: string }): CannonRequest => {
    const next = stamped(form.body);
    return { ...contact(form), setupRequest: (request) => withAddress({ ...request, body: next() }) };
  };
  const newSubscriber = stamped(
    Buffer.from(
      JSON.stringify({
        email: `${CONFIRMED.prefix}${STAMP}${CONFIRMED.domain}`,
        topics: ["AI", "Research"],
        "cf-turnstile-response": `pass.newsletter.${STAMP}`,
      }),
    ),
  );
  return [
    { ...ok, name: "GET /api/health", requests: [{ method: "GET", path: "/api/health" }] },
    { ...ok, name: "POST /api/contact", requests: [contact(plain)] },
    { ...ok, name: "POST /api/contact + 1 MiB PDF", requests: [contact(pdf)] },
    {
      ...ok,
      name: "POST /api/newsletter (new address)",
      requests: [
        {
          method: "POST",
          path: "/api/newsletter",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => {
            subscriber += 1;
            const email = `reader-${process.pid}-${Date.now().toString(36)}-${subscriber}@bench.example`;
            return withAddress({ ...request, body: JSON.stringify({ email, topics: ["AI", "Research"] }) });
          },
        },
      ],
    },
    {
      // One address over the default limit (5 per 10 minutes): every answer past the first five is a
      // 429, which must stay cheap, since a flood is what the limit is for.
      name: "POST /api/contact, 429 flood (one address)",
      server: "limited",
      expectedStatus: 429,
      requests: [
        {
          method: "POST",
          path: "/api/contact",
          headers: { "content-type": plain.contentType, "x-forwarded-for": "203.0.113.7" },
          body: plain.body,
        },
      ],
    },
    { ...ok, name: "POST /api/contact (Blob inbox)", server: "blob", requests: [contact(plain)] },
    {
      ...ok,
      name: "POST /api/contact (Turnstile + acknowledgment)",
      server: "features",
      requests: [stampedContact(verified)],
    },
    {
      ...ok,
      name: "POST /api/newsletter (Turnstile + double opt-in)",
      server: "features",
      requests: [
        {
          method: "POST",
          path: "/api/newsletter",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => withAddress({ ...request, body: newSubscriber() }),
        },
      ],
    },
  ];
}

interface ThroughputRow {
  scenario: string;
  /** Completed requests divided by the seconds measured. */
  requestsPerSecond: number;
  /** Requests/s of each round, to show how much the machine's load moved them. */
  roundsRequestsPerSecond: number[];
  requests: number;
  latencyMs: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Answers with another status than the scenario expects (non-2xx, or non-429 for the flood). */
  unexpected: number;
  statusCodes: Record<string, number>;
  /** Requests/s as a fraction of GET /api/health's. */
  throughputVsHealth: number;
  /**
   * The same ratio predicted from CPU time: health's JS-thread milliseconds per request over this
   * endpoint's. The JS thread is what saturates, and CPU time per request moves far less than
   * requests/s when other work shares the machine.
   */
  throughputVsHealthByCpu: number;
  /** p99 latency as a multiple of GET /api/health's. */
  p99VsHealth: number;
  /** The server's CPU time per completed request: every thread, and its JavaScript (main) thread. */
  serverCpuMsPerRequest: number;
  mainThreadCpuMsPerRequest: number;
  /**
   * This process's CPU time per completed request: the load generator, and the stand-ins that answer
   * the server (siteverify, SMTP, Blob) for the rows that use them. On one machine it shares the
   * CPUs with the server.
   */
  loadCpuMsPerRequest: number;
}

/** Seconds each scenario runs before anything is measured, so V8 has optimised the route's code. */
const WARM_UP_SECONDS = 3;

interface Round {
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  timeouts: number;
  cpuMs: number;
  mainCpuMs: number;
  loadCpuMs: number;
}

async function round(app: AppServer, pid: number, scenario: Scenario, seconds: number): Promise<Round> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const cpuBefore = await cpuMilliseconds(pid);
  const mainBefore = await cpuMilliseconds(pid, pid);
  const loadBefore = process.cpuUsage();
  const instance = autocannon({
    url: app.url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: scenario.requests,
  });
  instance.on("response", (_client, status, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result: Result = await instance;
  const load = process.cpuUsage(loadBefore);
  return {
    seconds: result.duration,
    latencies,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuMs: (await cpuMilliseconds(pid)) - cpuBefore,
    mainCpuMs: (await cpuMilliseconds(pid, pid)) - mainBefore,
    loadCpuMs: (load.user + load.system) / 1000,
  };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

function summarise(scenario: Scenario, rounds: Round[]): ThroughputRow {
  const latencies = rounds.flatMap((each) => each.latencies).sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const each of rounds) {
    for (const [status, count] of each.statuses) statusCodes[status] = (statusCodes[status] ?? 0) + count;
  }
  const requests = latencies.length;
  const sum = (pick: (each: Round) => number) => rounds.reduce((total, each) => total + pick(each), 0);
  return {
    scenario: scenario.name,
    requestsPerSecond: requests / sum((each) => each.seconds),
    roundsRequestsPerSecond: rounds.map((each) => Math.round(each.latencies.length / each.seconds)),
    requests,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? NaN,
    },
    errors: sum((each) => each.errors),
    timeouts: sum((each) => each.timeouts),
    non2xx: Object.entries(statusCodes).reduce(
      (total, [status, count]) => total + (status.startsWith("2") ? 0 : count),
      0,
    ),
    unexpected: Object.entries(statusCodes).reduce(
      (total, [status, count]) =>
        total +
        (status === String(scenario.expectedStatus) || (scenario.expectedStatus === 429 && status === "200")
          ? 0
          : count),
      0,
    ),
    statusCodes,
    throughputVsHealth: NaN,
    throughputVsHealthByCpu: NaN,
    p99VsHealth: NaN,
    serverCpuMsPerRequest: requests > 0 ? sum((each) => each.cpuMs) / requests : NaN,
    mainThreadCpuMsPerRequest: requests > 0 ? sum((each) => each.mainCpuMs) / requests : NaN,
    loadCpuMsPerRequest: requests > 0 ? sum((each) => each.loadCpuMs) / requests : NaN,
  };
}

/**
 * Warms every route up, then measures the scenarios in interleaved rounds (health, contact, ...,
 * health, contact, ...), so that a burst of load from elsewhere on a shared machine falls on all of
 * them alike instead of on whichever happened to run at that moment.
 */
async function measureThroughput(servers: Record<ServerKind, MeasuredServer>): Promise<ThroughputRow[]> {
  const list = await scenarios();
  console.log(`  warming up: ${WARM_UP_SECONDS} s per endpoint`);
  for (const scenario of list) {
    const { app } = servers[scenario.server];
    await autocannon({ url: app.url, connections, duration: WARM_UP_SECONDS, requests: scenario.requests });
  }
  const seconds = duration / rounds;
  console.log(`  measuring: ${rounds} rounds of ${seconds} s per endpoint at ${connections} connections`);
  const measured = list.map(() => [] as Round[]);
  for (let index = 0; index < rounds; index++) {
    for (const [position, scenario] of list.entries()) {
      const { app, pid } = servers[scenario.server];
      measured[position]?.push(await round(app, pid, scenario, seconds));
      await sleep(200);
    }
    process.stdout.write(`  round ${index + 1}/${rounds} done\n`);
  }
  const rows = list.map((scenario, position) => summarise(scenario, measured[position] ?? []));
  const health = rows[0] as ThroughputRow;
  for (const row of rows) {
    row.throughputVsHealth = row.requestsPerSecond / health.requestsPerSecond;
    row.throughputVsHealthByCpu = health.mainThreadCpuMsPerRequest / row.mainThreadCpuMsPerRequest;
    row.p99VsHealth = row.latencyMs.p99 / health.latencyMs.p99;
  }
  return rows;
}

/**
 * Whether every request the part-2 server took produced its email: the server's own records (each
 * stored brief's `delivery.json`, each pending subscriber) against what the SMTP server accepted.
 * Counted over the whole run, warm-up included, and over requests whose answer the client no longer
 * waited for at the end of a round: the server finished those too.
 */
interface EmailCheck {
  /** Briefs stored from the acknowledged senders, and how many of them `delivery.json` records as acknowledged. */
  briefs: number;
  acknowledgedInDelivery: number;
  /** Acknowledgments the SMTP server accepted, and the stored briefs' senders among their recipients. */
  acknowledgmentsReceived: number;
  briefsWithTheirEmail: number;
  /** Pending subscribers stored, confirmation emails accepted, and subscribers among their recipients. */
  subscribers: number;
  confirmationsReceived: number;
  subscribersWithTheirEmail: number;
  /** Emails to any other address, or a second one to the same address (there should be none). */
  otherEmails: number;
}

async function jsonFiles(folder: string, name: string | null): Promise<unknown[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter(
    (entry) => entry.isFile() && (name === null ? entry.name.endsWith(".json") : entry.name === name),
  );
  return Promise.all(
    files.map(
      async (entry) => JSON.parse(await readFile(join(entry.parentPath, entry.name), "utf8")) as unknown,
    ),
  );
}

async function checkEmails(inbox: string, smtp: SmtpTestServer): Promise<EmailCheck> {
  const recipients = smtp.envelopes.flatMap((envelope) => envelope.to.map((to) => to.toLowerCase()));
  const ofKind = (kind: typeof ACKNOWLEDGED) =>
    recipients.filter((to) => to.startsWith(kind.prefix) && to.endsWith(kind.domain));
  const acknowledged = new Set(ofKind(ACKNOWLEDGED));
  const confirmed = new Set(ofKind(CONFIRMED));

  const briefs = (await jsonFiles(join(inbox, "briefs"), "brief.json")) as {
    email: string;
    reference: string;
  }[];
  const deliveries = (await jsonFiles(join(inbox, "briefs"), "delivery.json")) as {
    acknowledgment?: { ok: boolean };
  }[];
  const subscribers = (await jsonFiles(join(inbox, "newsletter", "subscribers"), null)) as {
    email: string;
    status: string;
  }[];
  const pending = subscribers.filter((record) => record.status === "pending");
  return {
    briefs: briefs.length,
    acknowledgedInDelivery: deliveries.filter((delivery) => delivery.acknowledgment?.ok === true).length,
    acknowledgmentsReceived: ofKind(ACKNOWLEDGED).length,
    briefsWithTheirEmail: briefs.filter((brief) => acknowledged.has(brief.email.toLowerCase())).length,
    subscribers: pending.length,
    confirmationsReceived: ofKind(CONFIRMED).length,
    subscribersWithTheirEmail: pending.filter((record) => confirmed.has(record.email.toLowerCase())).length,
    otherEmails: recipients.length - acknowledged.size - confirmed.size,
  };
}

// ---------------------------------------------------------------------------------------------------
// Memory under concurrent uploads, and the declared-oversize body

interface RawAnswer {
  status: number;
  body: string;
}

function post(app: AppServer, body: Buffer, contentType: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${app.url}/api/contact`,
      {
        method: "POST",
        agent: false,
        timeout: 120_000,
        headers: {
          "content-type": contentType,
          "content-length": body.byteLength,
          "x-forwarded-for": nextAddress(),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on("timeout", () => request.destroy(new Error("no answer within 120 s")));
    request.on("error", reject);
    request.end(body);
  });
}

interface MemoryResult {
  inbox: "filesystem" | "blob";
  uploads: number;
  fileBytes: number;
  bytesInFlight: number;
  statuses: Record<string, number>;
  idleRssBytes: number;
  peakRssBytes: number;
  peakAboveIdleBytes: number;
  /** Peak above idle divided by the file bytes in flight. Target: at most 0.25. */
  ratioToBytesInFlight: number;
  /** Where the peak came from: VmHWM after a reset, or only the 10 ms samples of VmRSS. */
  peakSource: "VmHWM" | "VmRSS samples";
  elapsedMs: number;
}

async function measureUploadMemory(
  app: AppServer,
  pid: number,
  inbox: "filesystem" | "blob",
  uploads: number,
): Promise<MemoryResult> {
  // Load the route's code (parser, type sniffing, store) with small briefs, then let the heap settle.
  const small = await multipart(briefForm(validBrief(), { bytes: makePdf(), name: "brief.pdf" }));
  for (let i = 0; i < 5; i++) await post(app, small.body, small.contentType);
  await sleep(2000);

  const file = makeFileOfSize("pdf", TEN_MIB);
  const { body, contentType } = await multipart(
    briefForm(validBrief(), { bytes: file, name: "brief.pdf", type: "application/pdf" }),
  );
  const idle = (await residentMemory(pid)).rss;
  const peakResettable = await resetPeakMemory(pid);
  let sampled = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      sampled = Math.max(sampled, (await residentMemory(pid)).rss);
      await sleep(10);
    }
  })();

  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: uploads }, () => post(app, body, contentType)));
  const elapsedMs = performance.now() - started;
  sampling = false;
  await sampler;
  const { hwm } = await residentMemory(pid);
  const peak = peakResettable ? Math.max(hwm, sampled) : sampled;

  const statuses: Record<string, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const bytesInFlight = uploads * file.byteLength;
  return {
    inbox,
    uploads,
    fileBytes: file.byteLength,
    bytesInFlight,
    statuses,
    idleRssBytes: idle,
    peakRssBytes: peak,
    peakAboveIdleBytes: peak - idle,
    ratioToBytesInFlight: (peak - idle) / bytesInFlight,
    peakSource: peakResettable ? "VmHWM" : "VmRSS samples",
    elapsedMs,
  };
}

interface OversizeResult {
  declaredBytes: number;
  status: number;
  answeredAfterMs: number;
  /** Body bytes the client had handed to the kernel when the answer arrived (an upper bound). */
  clientBytesSent: number;
  /** The server's rchar growth (socket and file reads, every thread) when the answer arrived. */
  serverBytesRead: number;
  /** What happens if the client keeps sending for another second after the 413. */
  afterwards: { clientBytesSent: number; serverBytesRead: number; connectionClosed: boolean };
}

/**
 * Declares a 100 MiB body and sends it slowly (16 KiB every 2 ms) so that the answer can arrive
 * between chunks; counts what was sent and what the server read at the moment it did.
 */
async function measureDeclaredOversize(app: AppServer, pid: number): Promise<OversizeResult> {
  const declared = 100 * MiB;
  const socket: Socket = connect(app.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let closed = false;
  socket.on("close", () => (closed = true));
  socket.on("error", () => {}); // writing after the server closed: expected, seen as `closed`

  let sent = 0;
  let answer = "";
  let answered: { at: number; sent: number; read: Promise<number> } | null = null;
  const readBefore = await bytesRead(pid);
  const started = performance.now();
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString("latin1");
    answered ??= { at: performance.now() - started, sent, read: bytesRead(pid) };
  });
  socket.write(
    `POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n` +
      `Content-Type: multipart/form-data; boundary=oversize\r\nContent-Length: ${declared}\r\n` +
      `X-Forwarded-For: ${nextAddress()}\r\n\r\n` +
      `--oversize\r\nContent-Disposition: form-data; name="brief"; filename="big.txt"\r\n\r\n`,
  );
  const chunk = Buffer.alloc(16 * KiB, "a");
  const send = async (until: () => boolean) => {
    while (!until() && !closed && sent + chunk.byteLength <= declared) {
      await new Promise<void>((resolve) =>
        socket.write(chunk, (error) => {
          if (!error) sent += chunk.byteLength;
          resolve();
        }),
      );
      await sleep(2);
    }
  };
  await send(() => answered !== null || performance.now() - started > 15_000);
  const first = answered as { at: number; sent: number; read: Promise<number> } | null;
  if (!first) throw new Error("no answer to a declared 100 MiB body within 15 s");
  const serverBytesRead = (await first.read) - readBefore;

  const afterStart = performance.now();
  await send(() => performance.now() - afterStart > 1000);
  const afterwards = {
    clientBytesSent: sent,
    serverBytesRead: (await bytesRead(pid)) - readBefore,
    connectionClosed: closed,
  };
  socket.destroy();
  return {
    declaredBytes: declared,
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0),
    answeredAfterMs: first.at,
    clientBytesSent: first.sent,
    serverBytesRead,
    afterwards,
  };
}

// ---------------------------------------------------------------------------------------------------
// Report

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const mib = (bytes: number) => `${fixed(bytes / MiB)} MiB`;

function printThroughput(rows: ThroughputRow[]): void {
  const header = [
    "endpoint",
    "req/s",
    "vs health",
    "by CPU",
    "p50 ms",
    "p99 ms",
    "p99 vs health",
    "errors",
    "unexpected",
    "CPU ms/req",
    "of it JS thread",
    "load side ms/req",
  ];
  const lines = rows.map((row) => [
    row.scenario,
    fixed(row.requestsPerSecond, 0),
    `${fixed(row.throughputVsHealth * 100, 0)}%`,
    `${fixed(row.throughputVsHealthByCpu * 100, 0)}%`,
    fixed(row.latencyMs.p50, 0),
    fixed(row.latencyMs.p99, 0),
    `${fixed(row.p99VsHealth, 2)}x`,
    String(row.errors + row.timeouts),
    String(row.unexpected),
    fixed(row.serverCpuMsPerRequest, 2),
    fixed(row.mainThreadCpuMsPerRequest, 2),
    fixed(row.loadCpuMsPerRequest, 2),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]?.length ?? 0)),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  console.log(`\n${format(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const line of lines) console.log(format(line));
  console.log(
    "\nvs health: req/s over health's. by CPU: the same ratio predicted from the server's JavaScript-thread" +
      "\nCPU time per request (the thread that saturates), which moves far less than req/s on a shared machine." +
      "\nload side: this process's CPU time per request (the load generator, and the stand-ins the row's server" +
      "\ncalls: Blob, siteverify, SMTP), which it takes from the same CPUs as the server.",
  );
  console.log("\nreq/s in each round (the spread is the machine's noise):");
  for (const row of rows) console.log(`  ${row.scenario}: ${row.roundsRequestsPerSecond.join(", ")}`);
}

function printEmails(emails: EmailCheck): void {
  console.log(
    `\nEmails (part 2 server, whole run, warm-up included): ${emails.briefs} briefs stored, ` +
      `${emails.acknowledgedInDelivery} acknowledged in delivery.json, ${emails.acknowledgmentsReceived} ` +
      `acknowledgments received by the SMTP server, ${emails.briefsWithTheirEmail} briefs whose sender got one; ` +
      `${emails.subscribers} pending subscribers, ${emails.confirmationsReceived} confirmations received, ` +
      `${emails.subscribersWithTheirEmail} subscribers who got theirs; ${emails.otherEmails} other emails.`,
  );
}

interface Target {
  target: string;
  measured: string;
  met: boolean;
}

function targets(
  rows: ThroughputRow[] | null,
  memory: readonly MemoryResult[],
  oversize: OversizeResult | null,
  emails: EmailCheck | null,
): Target[] {
  const list: Target[] = [];
  const row = (name: string) => rows?.find((candidate) => candidate.scenario === name);
  const contact = row("POST /api/contact");
  const newsletter = row("POST /api/newsletter (new address)");
  if (contact) {
    list.push({
      target: "contact without a file >= 60% of health's req/s",
      measured: `${fixed(contact.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(contact.throughputVsHealthByCpu * 100, 0)}%)`,
      met: contact.throughputVsHealth >= 0.6,
    });
    list.push({
      target: "contact without a file: p99 <= 2x health's p99",
      measured: `${fixed(contact.p99VsHealth, 2)}x`,
      met: contact.p99VsHealth <= 2,
    });
  }
  if (newsletter) {
    list.push({
      target: "newsletter >= 80% of health's req/s",
      measured: `${fixed(newsletter.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(newsletter.throughputVsHealthByCpu * 100, 0)}%)`,
      met: newsletter.throughputVsHealth >= 0.8,
    });
  }
  const withFeatures = [
    { name: "POST /api/contact (Turnstile + acknowledgment)", label: "contact", share: 0.6 },
    { name: "POST /api/newsletter (Turnstile + double opt-in)", label: "newsletter", share: 0.8 },
  ];
  for (const { name, label, share } of withFeatures) {
    const measured = row(name);
    if (!measured) continue;
    list.push({
      target: `part 2 on: ${label} >= ${fixed(share * 100, 0)}% of health's req/s`,
      measured: `${fixed(measured.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(measured.throughputVsHealthByCpu * 100, 0)}%)`,
      met: measured.throughputVsHealth >= share,
    });
  }
  if (rows) {
    const failures = rows.reduce((total, each) => total + each.errors + each.timeouts + each.unexpected, 0);
    list.push({
      target: "no errors, timeouts or unexpected statuses (2xx; 429 for the flood)",
      measured: String(failures),
      met: failures === 0,
    });
  }
  if (emails) {
    list.push({
      target: "part 2 on: every stored brief acknowledged, every new subscriber sent its confirmation",
      measured:
        `${emails.briefsWithTheirEmail} of ${emails.briefs} briefs (${emails.acknowledgedInDelivery} acknowledged in delivery.json), ` +
        `${emails.subscribersWithTheirEmail} of ${emails.subscribers} subscribers; ` +
        `${emails.acknowledgmentsReceived + emails.confirmationsReceived + emails.otherEmails} emails received`,
      met:
        emails.briefs > 0 &&
        emails.subscribers > 0 &&
        emails.briefsWithTheirEmail === emails.briefs &&
        emails.acknowledgedInDelivery === emails.briefs &&
        emails.acknowledgmentsReceived === emails.briefs &&
        emails.subscribersWithTheirEmail === emails.subscribers &&
        emails.confirmationsReceived === emails.subscribers &&
        emails.otherEmails === 0,
    });
  }
  for (const inbox of ["filesystem", "blob"] as const) {
    const runs = memory.filter((each) => each.inbox === inbox).sort((a, b) => b.uploads - a.uploads);
    const [full, quarter] = runs;
    if (!full) continue;
    // What each further upload adds, with the garbage level that does not grow with them taken out.
    const marginal =
      quarter && full.uploads > quarter.uploads
        ? (full.peakAboveIdleBytes - quarter.peakAboveIdleBytes) /
          (full.bytesInFlight - quarter.bytesInFlight)
        : NaN;
    list.push({
      target: `${inbox} inbox: peak memory above idle <= 0.25x the ${mib(full.bytesInFlight)} of files in flight`,
      measured:
        `${mib(full.peakAboveIdleBytes)} = ${fixed(full.ratioToBytesInFlight, 2)}x` +
        (quarter
          ? ` (${quarter.uploads} uploads: ${mib(quarter.peakAboveIdleBytes)}; each further upload ${fixed(marginal, 2)}x of its bytes)`
          : ""),
      met: full.ratioToBytesInFlight <= 0.25 && runs.every((each) => each.statuses["200"] === each.uploads),
    });
  }
  if (oversize) {
    list.push({
      target: "declared 100 MiB body: 413 having read < 1 MiB",
      measured: `${oversize.status}, server read ${fixed(oversize.serverBytesRead / KiB)} KiB, client sent ${fixed(oversize.clientBytesSent / KiB)} KiB`,
      met: oversize.status === 413 && oversize.serverBytesRead < MiB,
    });
  }
  return list;
}

async function main(): Promise<void> {
  ensureBuild();
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryBytes: os.totalmem(),
    loadAverageAtStart: os.loadavg(),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  console.log(
    `Machine: ${machine.cpus} x ${machine.cpuModel}, ${mib(machine.memoryBytes)}, ${machine.platform}, Node ${machine.node}; ` +
      `load average ${machine.loadAverageAtStart.map((load) => load.toFixed(2)).join(" ")}`,
  );
  const inboxes: string[] = [];
  let throughput: ThroughputRow[] | null = null;
  const memory: MemoryResult[] = [];
  let oversize: OversizeResult | null = null;
  let emails: EmailCheck | null = null;
  const standIn = await startBlobStandIn();
  const siteverify = await startSiteverifyStandIn({ secret: TURNSTILE_SECRET, hostname: "127.0.0.1" });
  const smtp = await startSmtpServer({ envelopesOnly: true });
  /** A fresh server of `kind`, with the pid that holds its listening socket. */
  const startServer = async (kind: ServerKind): Promise<MeasuredServer> => {
    const inbox = await tempDir("intake-bench-");
    inboxes.push(inbox);
    const env: Record<string, string> =
      kind === "blob"
        ? { ...SERVER_ENV, ...blobEnv(standIn.token, standIn.origin) }
        : kind === "limited"
          ? { IP_HASH_SALT: SERVER_ENV.IP_HASH_SALT, INBOX_DIR: inbox }
          : kind === "features"
            ? { ...SERVER_ENV, INBOX_DIR: inbox, ...featureEnv(siteverify, smtp) }
            : { ...SERVER_ENV, INBOX_DIR: inbox };
    const app = await startApp(env);
    return { app, pid: await listeningPid(app.pid, app.port), inbox: kind === "blob" ? null : inbox };
  };
  try {
    if (!flags["skip-throughput"]) {
      const servers: Partial<Record<ServerKind, MeasuredServer>> = {};
      try {
        for (const kind of ["filesystem", "limited", "blob", "features"] as const)
          servers[kind] = await startServer(kind);
        const all = servers as Record<ServerKind, MeasuredServer>;
        console.log(
          `\nThroughput (filesystem inbox: ${all.filesystem.app.url}, default limits: ${all.limited.app.url}, ` +
            `Blob inbox through the stand-in: ${all.blob.app.url}, Turnstile, acknowledgment and double ` +
            `opt-in through the siteverify and SMTP stand-ins: ${all.features.app.url}):`,
        );
        throughput = await measureThroughput(all);
        // delivery.json may be written just after the last answers (recordDelivery's short wait).
        await sleep(1000);
        emails = await checkEmails(all.features.inbox as string, smtp);
      } finally {
        await Promise.all(Object.values(servers).map((server) => server.app.stop()));
      }
      printThroughput(throughput);
      if (emails) printEmails(emails);
    }
    if (!flags["skip-memory"]) {
      for (const inbox of ["filesystem", "blob"] as const) {
        // A fresh server each time, so earlier garbage does not count as its idle level; and a
        // quarter of the uploads too, to tell what each upload holds from the garbage the runtime
        // lets build up before it collects (a level that does not grow with the uploads).
        for (const count of [uploads, Math.max(1, Math.floor(uploads / 4))]) {
          const { app, pid } = await startServer(inbox);
          try {
            console.log(
              `\nMemory, ${inbox} inbox: ${count} concurrent uploads of a 10 MiB PDF (server pid ${pid})...`,
            );
            const result = await measureUploadMemory(app, pid, inbox, count);
            memory.push(result);
            console.log(
              `  idle ${mib(result.idleRssBytes)}, peak ${mib(result.peakRssBytes)} (${result.peakSource}), ` +
                `above idle ${mib(result.peakAboveIdleBytes)} = ${fixed(result.ratioToBytesInFlight, 2)}x of ` +
                `${mib(result.bytesInFlight)}; answers ${JSON.stringify(result.statuses)} in ${fixed(result.elapsedMs / 1000)} s`,
            );
            if (inbox === "filesystem" && count === uploads) {
              console.log("\nDeclared 100 MiB body, sent 16 KiB every 2 ms:");
              oversize = await measureDeclaredOversize(app, pid);
              console.log(
                `  ${oversize.status} after ${fixed(oversize.answeredAfterMs)} ms; by then the client had sent ` +
                  `${fixed(oversize.clientBytesSent / KiB)} KiB and the server had read ${fixed(oversize.serverBytesRead / KiB)} KiB`,
              );
              console.log(
                `  sending on for 1 s after the answer: client sent ${fixed(oversize.afterwards.clientBytesSent / KiB)} KiB, ` +
                  `server read ${fixed(oversize.afterwards.serverBytesRead / KiB)} KiB, connection ` +
                  (oversize.afterwards.connectionClosed ? "closed by the server" : "still open"),
              );
            }
          } finally {
            await app.stop();
          }
        }
      }
    }
  } finally {
    await standIn.close();
    await siteverify.stop();
    await smtp.stop();
    await Promise.all(inboxes.map((inbox) => rm(inbox, { recursive: true, force: true })));
  }

  const loadAverageAtEnd = os.loadavg();
  console.log(`\nLoad average at the end: ${loadAverageAtEnd.map((load) => load.toFixed(2)).join(" ")}`);
  const results = targets(throughput, memory, oversize, emails);
  console.log("\nTargets:");
  for (const target of results)
    console.log(`  ${target.met ? "met    " : "MISSED "} ${target.target}: ${target.measured}`);

  const output = flags.output;
  await mkdir(dirname(output), { recursive: true });
  await writeFile(
    output,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { ...machine, loadAverageAtEnd },
        settings: { duration, rounds, connections, uploads },
        throughput,
        emails,
        memory,
        oversize,
        targets: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nWrote ${output}`);

  // The inbox on the web's reading, last, on its defaults (`npm run bench:inbox -- --help` for its own).
  if (!flags["skip-inbox"]) {
    const inbox = spawnSync(process.execPath, [...process.execArgv, join(root, "scripts/bench/inbox.ts")], {
      stdio: "inherit",
    });
    if (inbox.status !== 0) process.exitCode = inbox.status ?? 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
