import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { E2E_BLOB_TOKEN } from "./env";

/**
 * What a Blob-inbox app under test (blob-app-server.ts) stored, read from its stand-in the way the
 * SDK reads it: the list API, and private reads by the store's host. `stateFile` is where the
 * server wrote its stand-in's address.
 */
export function blobInbox(stateFile: string) {
  const storeId = E2E_BLOB_TOKEN.split("_")[3] ?? "";
  const standIn = () => JSON.parse(readFileSync(stateFile, "utf8")) as { origin: string; apiUrl: string };

  /** Every object under `prefix` in the stand-in, through its list API. */
  async function listObjects(prefix: string): Promise<{ pathname: string; size: number }[]> {
    const response = await fetch(`${standIn().apiUrl}/?prefix=${encodeURIComponent(prefix)}`, {
      headers: { authorization: `Bearer ${E2E_BLOB_TOKEN}` },
    });
    return ((await response.json()) as { blobs: { pathname: string; size: number }[] }).blobs;
  }

  /** An object's bytes, read as the SDK reads a private blob (by its storage host); `null` when missing. */
  function readObject(pathname: string): Promise<Buffer | null> {
    const { origin } = standIn();
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        `${origin}/${pathname.split("/").map(encodeURIComponent).join("/")}?cache=0`,
        {
          headers: {
            host: `${storeId}.private.blob.vercel-storage.com`,
            authorization: `Bearer ${E2E_BLOB_TOKEN}`,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve(response.statusCode === 200 ? Buffer.concat(chunks) : null));
        },
      );
      request.on("error", reject);
      request.end();
    });
  }

  /** A brief's folder and `brief.json`, by reference. */
  async function storedBrief(reference: string) {
    const objects = await listObjects("briefs/");
    const brief = objects.find((object) => object.pathname.endsWith(`/${reference}/brief.json`));
    if (!brief) throw new Error(`brief ${reference} is not in the Blob inbox`);
    const folder = brief.pathname.slice(0, -"/brief.json".length);
    const record = JSON.parse((await readObject(brief.pathname))?.toString("utf8") ?? "null") as Record<
      string,
      unknown
    >;
    return { folder, record };
  }

  return { listObjects, readObject, storedBrief };
}
