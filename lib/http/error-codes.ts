/**
 * The API's error codes, the status each decides and each one's default sentence: plain data,
 * imported by the errors (`./errors`) and by the answers' schemas (`./responses`) alike.
 */

export const ERROR_STATUS = {
  malformed_body: 400,
  unauthorized: 401,
  cross_origin: 403,
  challenge_failed: 403,
  upload_unavailable: 404,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  storage_unavailable: 503,
  email_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Each code's sentence when the code alone says enough; also the examples of the OpenAPI document. */
export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  malformed_body: "The request body could not be read.",
  unauthorized: "Sign in to the inbox first.",
  cross_origin: "This form can only be sent from the site itself.",
  challenge_failed: "Please confirm you are human, then send again.",
  upload_unavailable:
    "Uploading ahead of the form is not available on this server; attach the file to the form instead.",
  not_found: "There is nothing here.",
  payload_too_large: "The request is too large.",
  unsupported_media_type: "The request has the wrong content type.",
  validation_failed: "Some fields need attention.",
  rate_limited: "Too many requests. Please try again later.",
  storage_unavailable: "We could not save your request just now. Please try again in a moment.",
  email_unavailable: "We could not send you an email just now. Please try again in a moment.",
  internal_error: "Something went wrong on our side. Please try again later.",
};
