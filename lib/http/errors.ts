import { StoreUnavailableError } from "../store/types";
import { DEFAULT_MESSAGES, ERROR_STATUS, type ErrorCode } from "./error-codes";
import type { ErrorBody } from "./responses";
import { apiTransportSecurityHeaders } from "./security-headers";

/**
 * The one error vocabulary of the API: a code decides the status, and every failure leaves
 * through `errorResponse` as `{ ok: false, error, message, fields? }`.
 */

export { DEFAULT_MESSAGES, ERROR_STATUS, type ErrorCode };

export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ErrorCode;
  readonly fields: Record<string, string> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string = DEFAULT_MESSAGES[code],
    options: { fields?: Record<string, string>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function validationFailed(fields: Record<string, string>): ApiError {
  return new ApiError("validation_failed", DEFAULT_MESSAGES.validation_failed, { fields });
}

const JSON_HEADERS = {
  "Content-Type": "application/json; charset=utf-8",
  "Cache-Control": "no-store",
} as const;

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}) {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { ...JSON_HEADERS, ...apiTransportSecurityHeaders(), ...init.headers },
  });
}

/**
 * Any thrown value as an `ApiError`: the one place a domain error becomes the contract's code. A
 * store that did not answer is 503 `storage_unavailable`, logged; an unknown error is logged with
 * its detail and becomes `internal_error`.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    console.error("[api] the store did not answer", error);
    return new ApiError("storage_unavailable", undefined, { cause: error });
  }
  console.error("[api] unexpected error", error);
  return new ApiError("internal_error");
}

/** Any thrown value to the contract's JSON body. Unknown errors are logged and answered with a bare 500. */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const apiError = toApiError(error);
  return json(
    {
      ok: false,
      error: apiError.code,
      message: apiError.message,
      ...(apiError.fields ? { fields: apiError.fields } : {}),
    } satisfies ErrorBody,
    { status: apiError.status, headers: { ...headers, ...apiError.headers } },
  );
}
