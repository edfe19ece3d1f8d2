import { request as httpRequest } from "node:http";
import { briefForm, validBrief } from "../../tests/support/contact";
import { makeFileOfSize, makePdf } from "../../tests/support/files";
import type { AppServer } from "../../tests/support/server";
import { residentMemory, resetPeakMemory } from "./proc";
import { multipart, nextAddress, sleep } from "./traffic";

/** The server's peak memory while it takes concurrent uploads of a real PDF (1 MiB or 10 MiB). */

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

export interface MemoryResult {
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

export async function measureUploadMemory(
  app: AppServer,
  pid: number,
  inbox: "filesystem" | "blob",
  uploads: number,
  fileBytes: number,
): Promise<MemoryResult> {
  // Load the route's code (parser, type sniffing, store) with small briefs, then let the heap settle.
  const small = await multipart(briefForm(validBrief(), { bytes: makePdf(), name: "brief.pdf" }));
  for (let i = 0; i < 5; i++) await post(app, small.body, small.contentType);
  await sleep(2000);

  const file = makeFileOfSize("pdf", fileBytes);
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
