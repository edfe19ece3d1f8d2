import { issueUploadToken, parseUploadTokenRequest, UPLOAD_TOKEN_BODY_LIMIT } from "@/lib/contact";
import { assertDeclaredSize, assertMediaType, readText } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { ApiError, errorResponse, json } from "@/lib/http/errors";
import { isCrossOrigin } from "@/lib/http/origin";
import type { UploadTokenIssued } from "@/lib/http/responses";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromJson } from "@/lib/verification";

/**
 * POST /api/contact/upload: a token for the browser to upload a brief's file straight to the Blob
 * store, under `staging/`, ahead of the form (`@vercel/blob/client`'s token request). Only with
 * the Blob inbox; elsewhere 404 `upload_unavailable`.
 */
export async function POST(request: Request): Promise<Response> {
  let rateLimitHeaders: Record<string, string> = {};
  try {
    const services = getServices();
    const { config } = services;
    if (config.inbox.driver !== "vercel-blob") throw new ApiError("upload_unavailable");

    if (isCrossOrigin(request.headers, config)) throw new ApiError("cross_origin");

    const address = clientAddress(request.headers, config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.upload, rateLimitSubject(address));

    assertDeclaredSize(request, UPLOAD_TOKEN_BODY_LIMIT);
    assertMediaType(request, "application/json");
    const body = await readText(request, UPLOAD_TOKEN_BODY_LIMIT);
    const { pathname } = parseUploadTokenRequest(body);
    // Without it, staging would be free file hosting for scripts.
    await requireHuman(services.verifier, {
      token: tokenFromJson(body),
      action: "upload",
      remoteIp: address,
    });

    const clientToken = await issueUploadToken(request, pathname, config.inbox.token);
    const answer = { ok: true, type: "blob.generate-client-token", clientToken } satisfies UploadTokenIssued;
    return json(answer, { headers: rateLimitHeaders });
  } catch (error) {
    return errorResponse(error, rateLimitHeaders);
  }
}
