import { declaredUploadType, newStagingId, stagedUploadPath } from "@/lib/schemas/staged-upload";
import { TOKEN_FIELD } from "@/lib/verification/types";

/**
 * The contact form's requests: the upload ahead of the form (Blob inbox) and the brief itself,
 * each read back as an `Answer` the form can explain to the visitor.
 */

/** The server's answer as the form reads it: status, JSON body (if any) and wait. */
export interface Answer {
  status: number;
  body: { reference?: string; error?: string; fields?: Record<string, string> } | null;
  retryAfter: number | null;
}

/** An answer's body, status and wait, whichever way it arrived. */
async function readAnswer(response: Response): Promise<Answer> {
  let body: Answer["body"] = null;
  try {
    body = (await response.json()) as Answer["body"];
  } catch {
    // not JSON: described by the status alone
  }
  const retryAfter = Number(response.headers.get("Retry-After"));
  return { status: response.status, body, retryAfter: retryAfter > 0 ? retryAfter : null };
}

/**
 * Uploads the file to the Blob store under a fresh staging path: a token from our own endpoint,
 * then the SDK's client `put` (with progress). The token is fetched here rather than through the
 * SDK's `upload()`, which reduces every refusal to "failed to retrieve the client token": the form
 * needs the status and `Retry-After` to say what happened. Returns the path, or the refusal.
 */
export async function uploadAhead(
  tokenUrl: string,
  file: File,
  humanToken: string | null,
  onProgress: (fraction: number) => void,
): Promise<string | Answer> {
  const pathname = stagedUploadPath(newStagingId(), file.name);
  const response = await fetch(tokenUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      type: "blob.generate-client-token",
      payload: { pathname, clientPayload: null, multipart: false },
      ...(humanToken === null ? {} : { [TOKEN_FIELD]: humanToken }),
    }),
  });
  if (!response.ok) return readAnswer(response);
  const { clientToken } = (await response.json()) as { clientToken: string };
  const { put } = await import("@vercel/blob/client");
  try {
    const blob = await put(pathname, file, {
      access: "private",
      token: clientToken,
      contentType: declaredUploadType(file.name) ?? undefined,
      onUploadProgress: ({ percentage }) => onProgress(percentage / 100),
    });
    return blob.pathname;
  } catch {
    return { status: 0, body: { error: "upload_failed" }, retryAfter: null };
  }
}

/** XHR rather than fetch: only XHR reports upload progress. */
export function postBrief(
  url: string,
  form: FormData,
  onProgress: (fraction: number) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    request.setRequestHeader("Accept", "application/json");
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener("load", () => {
      let body: Answer["body"] = null;
      try {
        body = JSON.parse(request.responseText) as Answer["body"];
      } catch {
        // not JSON: described by the status alone
      }
      const retryAfter = Number(request.getResponseHeader("Retry-After"));
      resolve({ status: request.status, body, retryAfter: retryAfter > 0 ? retryAfter : null });
    });
    request.addEventListener("error", () => reject(new Error("network")));
    request.addEventListener("abort", () => reject(new Error("network")));
    request.send(form);
  });
}
