import { issueUploadToken, parseUploadTokenRequest, UPLOAD_TOKEN_BODY_LIMIT } from "@/lib/contact";
import { ApiError } from "@/lib/http/errors";
import { publicRoute } from "@/lib/http/public-route";
import type { UploadTokenIssued } from "@/lib/http/responses";
import { getServices, type Services } from "@/lib/services";
import { requireHuman, tokenFromJson } from "@/lib/verification";

/**
 * POST /api/contact/upload: a token for the browser to upload a brief's file straight to the Blob
 * store, under `staging/`, ahead of the form (`@vercel/blob/client`'s token request). Only with
 * the Blob inbox; elsewhere 404 `upload_unavailable`.
 */
export const POST = publicRoute(
  {
    services: getServices,
    assertOffered: blobInboxToken,
    sameOriginOnly: true,
    limiter: (services) => services.limiters.upload,
    maxBodyBytes: UPLOAD_TOKEN_BODY_LIMIT,
    mediaType: "application/json",
  },
  async ({ request, services, address, readText }) => {
    const body = await readText();
    const { pathname } = parseUploadTokenRequest(body);
    // Without it, staging would be free file hosting for scripts.
    await requireHuman(services.verifier, {
      token: tokenFromJson(body),
      action: "upload",
      remoteIp: address,
    });

    const clientToken = await issueUploadToken(request, pathname, blobInboxToken(services));
    return {
      body: { ok: true, type: "blob.generate-client-token", clientToken } satisfies UploadTokenIssued,
    };
  },
);

/** The Blob inbox's read-write token; 404 `upload_unavailable` with any other inbox. */
function blobInboxToken({ config }: Services): string {
  if (config.inbox.driver !== "vercel-blob") throw new ApiError("upload_unavailable");
  return config.inbox.token;
}
