import { type ClientRequest, request as httpRequest } from "node:http";

/** A brief that passes every rule; tests override what they probe. */
export function validBrief(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    role: "Founder",
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers and explains its reasoning.",
    consent: "on",
    ...overrides,
  };
}

export interface FilePart {
  bytes: Uint8Array;
  name: string;
  type?: string;
}

export function briefForm(fields: Record<string, string>, file?: FilePart): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  if (file) {
    form.append(
      "brief",
      new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? "application/octet-stream" }),
      file.name,
    );
  }
  return form;
}

let counter = 0;
/** A fresh client address from the documentation range, so each test has its own rate-limit budget. */
export function nextAddress(): string {
  counter += 1;
  return `198.51.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`;
}

export async function postContact(
  baseUrl: string,
  body: FormData | BodyInit,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/api/contact`, {
    method: "POST",
    body,
    headers: { "x-forwarded-for": nextAddress(), ...headers },
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A hand-driven HTTP request: `write` decides what (and how much) of the body is sent, so tests
 * can declare sizes they never send, or stream without a Content-Length.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers: Record<string, string | number>;
    write?: (req: ClientRequest) => void;
    /** Fails the request when no complete answer has come within this time. */
    timeoutMs?: number;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answer: RawResponse | null = null;
    const req = httpRequest(
      url,
      { method: options.method ?? "POST", headers: options.headers, agent: false },
      (res) => {
        answer = { status: res.statusCode ?? 0, headers: res.headers, body: "" };
        const current = answer;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (current.body += chunk));
        res.on("end", () => resolve(current));
        res.on("error", () => resolve(current));
      },
    );
    // The server may answer and close while we are still sending: that is the behaviour under test.
    req.on("error", (error) => {
      if (answer) setTimeout(() => resolve(answer as RawResponse), 50);
      else reject(error);
    });
    if (options.timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`no complete answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      req.on("close", () => clearTimeout(timer));
    }
    if (options.write) options.write(req);
    else req.end();
  });
}

export interface RawPart {
  /** Header lines of the part, without line ends. */
  headers: string[];
  /** The part's content: a string is sent as UTF-8, bytes as they are. */
  body: Uint8Array | string;
}

/** A text part as clients label it: `contentType` as given, or none (what browsers send). */
export function textPart(name: string, value: Uint8Array | string, contentType?: string): RawPart {
  const headers = [`Content-Disposition: form-data; name="${name}"`];
  if (contentType !== undefined) headers.push(`Content-Type: ${contentType}`);
  return { headers, body: value };
}

/** A `multipart/form-data` body built byte by byte, for labels and bytes `FormData` never sends. */
export function multipartBody(boundary: string, parts: readonly RawPart[]): Buffer<ArrayBuffer> {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n${part.headers.join("\r\n")}\r\n\r\n`, "latin1"));
    pieces.push(typeof part.body === "string" ? Buffer.from(part.body, "utf8") : Buffer.from(part.body));
    pieces.push(Buffer.from("\r\n", "latin1"));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`, "latin1"));
  return Buffer.concat(pieces);
}
