/** What every measurement shares: byte units, waiting, client addresses, multipart bodies. */

export const KiB = 1024;
export const MiB = 1024 * KiB;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let addressCounter = 0;
/** A distinct client address per request (10.0.0.0/8), as real traffic comes from many clients. */
export function nextAddress(): string {
  addressCounter += 1;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

/** A multipart body as a browser's FormData serialises it, with its Content-Type (and boundary). */
export async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request("http://bench.invalid/", { method: "POST", body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get("content-type") ?? "",
  };
}
