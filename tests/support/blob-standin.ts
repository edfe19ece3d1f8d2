import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, type Http2Session } from "node:http2";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for Vercel Blob, speaking the HTTP API that the real `@vercel/blob` SDK uses
 * (read from its source, API version 12), so tests run the SDK itself against it:
 *
 * - API, under `VERCEL_BLOB_API_URL` (`<url>/api/blob`): `PUT /?pathname=` put, `PUT ?pathname=&fromUrl=`
 *   copy, `GET ?url=` head, `GET ?prefix=&cursor=&limit=` list, `POST /delete` del. Errors are
 *   `{ error: { code, message } }`, the codes the SDK maps to its error classes.
 * - Blob contents, requested by the SDK at `https://<store id>.<access>.blob.vercel-storage.com/<path>`
 *   (tests route those hosts here, keeping the Host header; see blob-routing.mjs). Private blobs
 *   need the token and are served only on the `.private.` host.
 *
 * Client tokens (`vercel_blob_client_<store>_...`, what `handleUpload` issues and a browser uploads
 * with) are checked as the API checks them: signed with this store's read-write token, not expired,
 * good for one `put` of exactly their `pathname`, within their `maximumSizeInBytes` and
 * `allowedContentTypes`; their `allowOverwrite` and `addRandomSuffix` replace the request's. API
 * answers carry CORS headers and preflights are answered, as a browser needs.
 *
 * Overwrites follow the API: without `x-allow-overwrite: 1` an existing path is refused with
 * "This blob already exists" (400 `bad_request`, checked when the request arrives), and a writer
 * that loses a race to the same path while sending its body fails its conditional write (412
 * `precondition_failed`). `ifMatch` (`x-if-match`) on a put or a delete is checked against the
 * blob's current ETag as the write commits: a blob that has changed or is gone is 412
 * `precondition_failed`, and nothing is written. `fault` makes it answer errors or drop
 * connections on purpose.
 */

export interface StoredBlob {
  pathname: string;
  body: Buffer;
  contentType: string;
  access: "public" | "private";
  uploadedAt: Date;
  etag: string;
}

export type BlobOperation = "put" | "copy" | "head" | "list" | "delete" | "download" | "unknown";

export interface BlobRequestRecord {
  operation: BlobOperation;
  method: string;
  host: string;
  /** The blob path the request names, when it names one (a delete's, comma-separated). */
  pathname: string | null;
  headers: IncomingHttpHeaders;
  status: number;
  /** The decoded payload of the client token the request carried, if it carried one. */
  clientToken?: ClientTokenPayload;
}

/** What a client token allows (`generateClientTokenFromReadWriteToken`'s options, signed). */
export interface ClientTokenPayload {
  pathname: string;
  validUntil: number;
  maximumSizeInBytes?: number;
  allowedContentTypes?: string[];
  addRandomSuffix?: boolean;
  allowOverwrite?: boolean;
  onUploadCompleted?: { callbackUrl: string; tokenPayload?: string | null };
  [option: string]: unknown;
}

export interface BlobStandInOptions {
  /** Listen on this port instead of a free one. */
  port?: number;
  /**
   * Also serve the API over TLS with HTTP/2 on this port, for a browser: the SDK in a browser calls
   * `https://vercel.com/api/blob` and streams uploads, which Chromium does only over HTTP/2. The
   * browser tests resolve vercel.com to this listener.
   */
  browser?: { port: number; key: string; cert: string };
  /** Use this read-write token (and the store id in it) instead of a random one. */
  token?: string;
}

export interface BlobFault {
  /** Which requests it hits; all of them when absent. */
  match?: (request: { operation: BlobOperation; pathname: string | null }) => boolean;
  /** Answer this status (with the error body the API would send) before doing anything. */
  status?: number;
  /** Do the work, then drop the connection without answering: a response lost after the commit. */
  dropAfterCommit?: boolean;
  /** Answer a download with its headers and the first half of its bytes, then send nothing more. */
  stallBody?: boolean;
  /**
   * Hold the request this long once its body has arrived, then do the work whether or not the
   * client is still there: a write the store accepts after its client stopped waiting for it.
   */
  commitAfterMs?: number;
}

export interface BlobStandIn {
  /** For `VERCEL_BLOB_API_URL`. */
  apiUrl: string;
  /** Where requests for `*.blob.vercel-storage.com` must be routed. */
  origin: string;
  /** A read-write token for this store: `vercel_blob_rw_<storeId>_<secret>`. */
  token: string;
  storeId: string;
  objects: Map<string, StoredBlob>;
  requests: BlobRequestRecord[];
  fault: BlobFault | null;
  /** Largest list page it returns, whatever the client asks for (the API's own cap is 1000). */
  maxPageSize: number;
  close(): Promise<void>;
}

const STORAGE_HOST = /^([a-z0-9]+)\.(public|private)\.blob\.vercel-storage\.com$/i;

/** The type the API gives a blob sent without one, from its name (the few this project meets). */
const TYPES_BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  txt: "text/plain",
  md: "text/markdown",
  json: "application/json",
};

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, PUT, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-expose-headers": "*",
};

export async function startBlobStandIn(options: BlobStandInOptions = {}): Promise<BlobStandIn> {
  const token =
    options.token ??
    `vercel_blob_rw_teststore${randomBytes(4).toString("hex")}_${randomBytes(12).toString("hex")}`;
  const storeId = token.split("_")[3] ?? "";
  if (!/^vercel_blob_rw_[a-z0-9]+_\S+$/.test(token)) throw new Error(`Not a read-write token: ${token}`);
  const objects = new Map<string, StoredBlob>();
  const requests: BlobRequestRecord[] = [];
  const edgeCache = new Map<string, StoredBlob>();
  const state = { fault: null as BlobFault | null, maxPageSize: 1000 };

  const blobUrl = (blob: Pick<StoredBlob, "pathname" | "access">) =>
    `https://${storeId}.${blob.access}.blob.vercel-storage.com/${blob.pathname}`;

  const describeBlob = (blob: StoredBlob) => ({
    url: blobUrl(blob),
    downloadUrl: `${blobUrl(blob)}?download=1`,
    pathname: blob.pathname,
    contentType: blob.contentType,
    contentDisposition: `attachment; filename="${blob.pathname.split("/").pop() ?? ""}"`,
    etag: blob.etag,
  });

  /** The payload of a client token signed with this store's read-write token; `null` for any other. */
  function verifyClientToken(clientToken: string): ClientTokenPayload | null {
    const [, , , tokenStore, encoded] = clientToken.split("_");
    if (tokenStore !== storeId || !encoded) return null;
    const [signature, payload] = Buffer.from(encoded, "base64").toString("utf8").split(".");
    if (!signature || !payload) return null;
    const expected = createHmac("sha256", token).update(payload).digest("hex");
    if (
      signature.length !== expected.length ||
      !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
    ) {
      return null;
    }
    try {
      return JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as ClientTokenPayload;
    } catch {
      return null;
    }
  }

  /** The path a `url` parameter or `urls` entry names: a blob URL of this store, or a bare path. */
  const pathnameOf = (urlOrPathname: string) => {
    if (!/^https?:\/\//.test(urlOrPathname)) return urlOrPathname;
    return decodeURIComponent(new URL(urlOrPathname).pathname.slice(1));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const authority = req.headers[":authority"];
    const host = (req.headers.host ?? (typeof authority === "string" ? authority : "")).toLowerCase();
    const url = new URL(req.url ?? "/", "http://stand-in");
    const method = req.method ?? "GET";
    const storage = STORAGE_HOST.exec(host);

    if (!storage && method === "OPTIONS") {
      // A preflight: `*` does not cover Authorization, so the requested headers are named.
      const requested = req.headers["access-control-request-headers"];
      res
        .writeHead(204, {
          ...CORS_HEADERS,
          ...(typeof requested === "string" ? { "access-control-allow-headers": requested } : {}),
        })
        .end();
      return;
    }

    let operation: BlobOperation = "unknown";
    let pathname: string | null = null;
    if (storage) {
      operation = "download";
      pathname = decodeURIComponent(url.pathname.slice(1));
    } else if (url.pathname === "/api/blob" || url.pathname === "/api/blob/") {
      if (method === "PUT") {
        operation = url.searchParams.has("fromUrl") ? "copy" : "put";
        pathname = url.searchParams.get("pathname");
      } else if (method === "GET") {
        operation = url.searchParams.has("url") ? "head" : "list";
        if (operation === "head") pathname = pathnameOf(url.searchParams.get("url") ?? "");
      }
    } else if (url.pathname === "/api/blob/delete" && method === "POST") {
      operation = "delete";
    }

    // What the path held when the request arrived, before its body: what "already exists" is judged on.
    const atArrival = pathname === null ? undefined : objects.get(pathname);
    const body = await readBody(req);

    const record: BlobRequestRecord = { operation, method, host, pathname, headers: req.headers, status: 0 };
    requests.push(record);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      const text = payload === null ? "" : JSON.stringify(payload);
      res.writeHead(status, { "content-type": "application/json", ...CORS_HEADERS, ...headers });
      res.end(text);
    };
    const fail = (status: number, code: string, message: string) =>
      send(status, { error: { code, message } });

    const fault = state.fault;
    const faulty = fault && (!fault.match || fault.match({ operation, pathname }));
    if (faulty && fault.status !== undefined) {
      const code = fault.status === 503 ? "service_unavailable" : "internal_server_error";
      return fail(fault.status, code, `Simulated failure (${fault.status})`);
    }
    if (faulty && fault.commitAfterMs !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, fault.commitAfterMs));
    }
    const answer = (status: number, payload: unknown) => {
      if (faulty && fault.dropAfterCommit) {
        record.status = -1;
        req.socket.destroy();
        return;
      }
      send(status, payload);
    };

    if (storage) return download(storage[1] ?? "", storage[2] as StoredBlob["access"]);

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    let client: ClientTokenPayload | null = null;
    if (bearer?.startsWith("vercel_blob_client_")) {
      client = verifyClientToken(bearer);
      if (!client) {
        return fail(403, "forbidden", "Access denied, please provide a valid token for this resource.");
      }
      record.clientToken = client;
      if (operation !== "put") {
        return fail(
          403,
          "client_token_not_allowed",
          "This operation is not available when using a client token. Use a read–write or OIDC token on the server.",
        );
      }
    } else if (bearer !== token) {
      return fail(403, "forbidden", "Access denied, please provide a valid token for this resource.");
    }

    switch (operation) {
      case "put":
      case "copy":
        return write();
      case "head": {
        const blob = objects.get(pathname ?? "");
        if (!blob) return fail(404, "not_found", "The requested blob does not exist");
        return answer(200, {
          ...describeBlob(blob),
          size: blob.body.length,
          uploadedAt: blob.uploadedAt.toISOString(),
          cacheControl: "public, max-age=2592000",
        });
      }
      case "list":
        return listPage();
      case "delete": {
        const { urls } = JSON.parse(body.toString("utf8") || "{}") as { urls?: unknown };
        if (!Array.isArray(urls)) return fail(400, "bad_request", "urls must be an array");
        const pathnames = urls.map((entry) => pathnameOf(String(entry)));
        record.pathname = pathnames.join(",");
        const ifMatch = req.headers["x-if-match"];
        if (ifMatch !== undefined) {
          // A conditional delete names one blob, and removes it only at that ETag.
          if (pathnames.length !== 1) return fail(400, "bad_request", "ifMatch needs exactly one url");
          if (objects.get(pathnames[0] ?? "")?.etag !== ifMatch) {
            return fail(412, "precondition_failed", "Precondition failed: ETag mismatch.");
          }
        }
        for (const path of pathnames) objects.delete(path);
        return answer(200, {});
      }
      default:
        return fail(400, "bad_request", `The stand-in does not speak ${method} ${url.pathname}`);
    }

    function write(): void {
      if (!pathname) return fail(400, "bad_request", "pathname is required");
      if (pathname.includes("//")) return fail(400, "bad_request", 'pathname cannot contain "//"');
      const access = req.headers["x-vercel-blob-access"];
      if (access !== "public" && access !== "private") {
        return fail(400, "bad_request", 'access must be "private" or "public"');
      }
      const declaredType = req.headers["x-content-type"];
      let contentType =
        typeof declaredType === "string"
          ? declaredType
          : (TYPES_BY_EXTENSION[pathname.split(".").pop()?.toLowerCase() ?? ""] ?? undefined);
      if (client) {
        if (client.validUntil < Date.now()) return fail(400, "bad_request", "Token expired");
        if (pathname !== client.pathname) {
          return fail(400, "bad_request", 'Invalid "pathname": it does not match the token payload');
        }
        const effectiveType = contentType ?? "application/octet-stream";
        if (
          client.allowedContentTypes &&
          !client.allowedContentTypes.some((allowed) => typeMatches(allowed, effectiveType))
        ) {
          return fail(400, "bad_request", `contentType "${effectiveType}" is not allowed`);
        }
        if (client.maximumSizeInBytes !== undefined && body.length > client.maximumSizeInBytes) {
          return fail(
            400,
            "bad_request",
            `File size exceeds the maximum allowed: the file length cannot be greater than ${client.maximumSizeInBytes} bytes`,
          );
        }
      }
      // A client token decides these; the request cannot.
      const addRandomSuffix = client
        ? client.addRandomSuffix === true
        : req.headers["x-add-random-suffix"] === "1";
      const allowOverwrite = client
        ? client.allowOverwrite === true
        : req.headers["x-allow-overwrite"] === "1";
      let target = pathname;
      if (addRandomSuffix) {
        const dot = target.lastIndexOf(".");
        const suffix = randomBytes(8).toString("hex");
        target =
          dot > target.lastIndexOf("/")
            ? `${target.slice(0, dot)}-${suffix}${target.slice(dot)}`
            : `${target}-${suffix}`;
      }
      const ifMatch = req.headers["x-if-match"];
      const existing = target === pathname ? atArrival : objects.get(target);
      if (ifMatch !== undefined && objects.get(target)?.etag !== ifMatch) {
        return fail(412, "precondition_failed", "Precondition failed: ETag mismatch.");
      }
      if (existing && !allowOverwrite && ifMatch === undefined) {
        return fail(
          400,
          "bad_request",
          "This blob already exists, use `allowOverwrite: true` if you want to overwrite it. Or `addRandomSuffix: true` to generate a unique filename.",
        );
      }

      let content = body;
      if (operation === "copy") {
        const source = objects.get(pathnameOf(url.searchParams.get("fromUrl") ?? ""));
        if (!source) return fail(404, "not_found", "The requested blob does not exist");
        content = source.body;
        contentType = typeof declaredType === "string" ? declaredType : source.contentType;
      }
      const blob: StoredBlob = {
        pathname: target,
        body: content,
        contentType: contentType ?? "application/octet-stream",
        access,
        uploadedAt: new Date(),
        etag: `"${randomBytes(8).toString("hex")}"`,
      };
      // The conditional write at the end: another writer committed this path while we read the body.
      if (objects.has(target) && !existing && !allowOverwrite && ifMatch === undefined) {
        return fail(412, "precondition_failed", "Precondition failed: ETag mismatch.");
      }
      objects.set(target, blob);
      answer(200, describeBlob(blob));
    }

    function listPage(): void {
      const prefix = url.searchParams.get("prefix") ?? "";
      const after = url.searchParams.get("cursor");
      const start = after === null ? "" : Buffer.from(after, "base64url").toString("utf8");
      const limit = Math.min(Number(url.searchParams.get("limit") ?? 1000) || 1000, state.maxPageSize);
      const matching = [...objects.values()]
        .filter((blob) => blob.pathname.startsWith(prefix) && (after === null || blob.pathname > start))
        .sort((a, b) => (a.pathname < b.pathname ? -1 : a.pathname > b.pathname ? 1 : 0));
      const page = matching.slice(0, limit);
      const hasMore = matching.length > limit;
      const last = page[page.length - 1];
      answer(200, {
        blobs: page.map((blob) => ({
          url: blobUrl(blob),
          downloadUrl: `${blobUrl(blob)}?download=1`,
          pathname: blob.pathname,
          size: blob.body.length,
          uploadedAt: blob.uploadedAt.toISOString(),
          etag: blob.etag,
        })),
        ...(hasMore && last ? { cursor: Buffer.from(last.pathname).toString("base64url") } : {}),
        hasMore,
      });
    }

    function download(requestedStore: string, access: StoredBlob["access"]): void {
      // Like the CDN in front of the store: a read may be answered from a copy cached by an
      // earlier read, even after an overwrite, unless it asks for the origin with `?cache=0`.
      const current = objects.get(pathname ?? "");
      const cached = edgeCache.get(pathname ?? "");
      const fresh = url.searchParams.get("cache") === "0";
      const blob = current && cached && !fresh ? cached : current;
      if (current && !fresh) edgeCache.set(current.pathname, blob ?? current);
      const allowed = access === "public" || req.headers.authorization === `Bearer ${token}`;
      if (requestedStore !== storeId || !blob || blob.access !== access) {
        record.status = 404;
        res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
        return;
      }
      if (!allowed) {
        record.status = 403;
        res.writeHead(403, { "content-type": "text/plain" }).end("Forbidden");
        return;
      }
      const headers = {
        "content-type": blob.contentType,
        etag: blob.etag,
        "last-modified": blob.uploadedAt.toUTCString(),
        "cache-control": access === "private" ? "private, no-cache" : "public, max-age=2592000",
      };
      if (req.headers["if-none-match"] === blob.etag) {
        record.status = 304;
        res.writeHead(304, headers).end();
        return;
      }
      record.status = 200;
      res.writeHead(200, { ...headers, "content-length": String(blob.body.length) });
      if (faulty && fault.stallBody) res.write(blob.body.subarray(0, blob.body.length >> 1));
      else res.end(blob.body);
    }
  }

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal_server_error", message: String(error) } }));
    });
  };
  const server = createServer(serve);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  // The HTTP/2 compatibility API's request and response stand in for http's where it matters here.
  const secure = options.browser
    ? createSecureServer(
        { key: options.browser.key, cert: options.browser.cert, allowHTTP1: true },
        (req, res) => serve(req as unknown as IncomingMessage, res as unknown as ServerResponse),
      )
    : null;
  const sessions = new Set<Http2Session>();
  if (secure && options.browser) {
    const { port } = options.browser;
    secure.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
    await new Promise<void>((resolve, reject) => {
      secure.once("error", reject);
      secure.listen(port, "127.0.0.1", () => resolve());
    });
  }
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    apiUrl: `${origin}/api/blob`,
    origin,
    token,
    storeId,
    objects,
    requests,
    get fault() {
      return state.fault;
    },
    set fault(fault: BlobFault | null) {
      state.fault = fault;
    },
    get maxPageSize() {
      return state.maxPageSize;
    },
    set maxPageSize(size: number) {
      state.maxPageSize = size;
    },
    close: async () => {
      for (const session of sessions) session.destroy();
      await Promise.all([
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
        secure && new Promise<void>((resolve) => secure.close(() => resolve())),
      ]);
    },
  };
}

/** `allowedContentTypes` entries may end in `/*` (`image/*`). */
function typeMatches(allowed: string, contentType: string): boolean {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return allowed.endsWith("/*") ? type.startsWith(allowed.slice(0, -1)) : type === allowed.toLowerCase();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
