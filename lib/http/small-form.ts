import { getDecoder, parseContentType, parseDisposition } from "busboy/lib/utils.js";
import { decodePartText } from "./part-charsets";

/**
 * A small `multipart/form-data` body read whole, in one pass, for the common form: text fields
 * and at most an empty file input. busboy and its streams cost a form of a dozen short fields
 * more than the rest of its parsing (docs/performance.md, "The defaults' CPU"), so a body small
 * enough to hold is read here first, and only a body this reader is sure of is answered from it:
 * anything it does not recognise (a file, a preamble, a header other than Content-Disposition
 * and Content-Type, a byte above ASCII in a header, a folded line, a delimiter not followed by
 * CRLF or `--`, a field at its size cap, the part count near its cap...) makes it answer `null`,
 * and the same bytes go through busboy and the charset stage, which decide every refusal (400,
 * 413) as they always have. What it does answer is what that path gives for the same bytes; a
 * unit test holds the two side by side.
 */

/** Bodies up to this size (declared in Content-Length) are read whole and tried here first. */
export const SMALL_FORM_BYTES = 64 * 1024;

/** Longer header blocks are left to busboy, which has its own cap (16 KiB) for them. */
const MAX_HEADER_BLOCK = 4 * 1024;

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const HEADER_END = Buffer.from("\r\n\r\n", "latin1");

/** A header line as busboy reads one: a token, a colon, optional blanks, then visible ASCII. */
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\x21-\x7e][\t\x20-\x7e]*)$/;

/**
 * A text field's Content-Disposition as browsers write it: `form-data; name="..."`, the name
 * visible ASCII without a quote or backslash. busboy's parser gives exactly that name for it
 * (its decoder changes nothing in ASCII); anything else goes through that parser.
 */
const PLAIN_FIELD = /^form-data; name="([\x20\x21\x23-\x5b\x5d-\x7e]+)"$/;

/**
 * A form's Content-Type as browsers write it: `multipart/form-data; boundary=` and a token.
 * busboy's parser gives that boundary for it; anything else (quoted, other parameters, other
 * case or spacing) goes through that parser.
 */
const PLAIN_FORM_TYPE = /^multipart\/form-data; boundary=([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,200})$/;

/** What readMultipart's busboy decodes `filename*` and other extended parameters with. */
const PARAM_DECODER = getDecoder("utf8");

/**
 * The boundary of a `multipart/form-data` Content-Type that busboy accepts, when it is plain
 * ASCII (so its bytes are the same however a delimiter search encodes it); `null` otherwise.
 */
export function smallFormBoundary(contentType: string): string | null {
  const plain = PLAIN_FORM_TYPE.exec(contentType);
  if (plain) return plain[1] as string;
  const parsed = parseContentType(contentType);
  if (parsed?.type !== "multipart" || parsed.subtype !== "form-data") return null;
  const boundary = parsed.params.boundary;
  return typeof boundary === "string" && /^[\x20-\x7e]{1,200}$/.test(boundary) ? boundary : null;
}

/** The caps of readMultipart's limits this reader keeps clear of. */
export interface SmallFormLimits {
  maxFieldBytes: number;
  maxParts: number;
}

/** A text part's value, as readMultipart's `FieldValue` (never truncated here). */
export interface SmallFormField {
  value: string;
  truncated: boolean;
  invalidEncoding: boolean;
}

/** One part's headers, as far as this reader takes them. */
interface PartHeaders {
  name: string;
  /** busboy would emit it as a file (`application/octet-stream` with no file name). */
  file: boolean;
  /** Its `charset` parameter lowercased, `null` when none. */
  charset: string | null;
}

/**
 * The text fields of the form in `body` by name (its file parts, if any, were empty file inputs,
 * which readMultipart drops), or `null` when this reader leaves the body to busboy. Never throws
 * for what a client sends: every refusal is busboy's to make.
 */
export function parseSmallForm(
  body: Buffer,
  boundary: string,
  limits: SmallFormLimits,
): Map<string, SmallFormField[]> | null {
  const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  // busboy reads a CRLF before the body, so a body that opens with the delimiter's dashes has no preamble.
  if (body.indexOf(delimiter.subarray(2)) !== 0) return null;
  const fields = new Map<string, SmallFormField[]>();
  let at = delimiter.length - 2;
  for (let parts = 0; ;) {
    if (body[at] === DASH && body[at + 1] === DASH) {
      const epilogue = body.length - at - 2;
      const closed = epilogue === 0 || (epilogue === 2 && body[at + 2] === CR && body[at + 3] === LF);
      return closed ? fields : null;
    }
    if (body[at] !== CR || body[at + 1] !== LF) return null;
    at += 2;
    // busboy answers 413 once the parts reach the cap: that and anything near it is its to say.
    if (++parts >= limits.maxParts) return null;
    const next = body.indexOf(delimiter, at);
    const headerEnd = body.indexOf(HEADER_END, at);
    if (next === -1 || headerEnd === -1 || headerEnd + HEADER_END.length > next) return null;
    if (headerEnd - at > MAX_HEADER_BLOCK) return null;
    const headers = partHeaders(body.toString("latin1", at, headerEnd));
    if (headers === null) return null;
    const content = body.subarray(headerEnd + HEADER_END.length, next);
    if (headers.file) {
      // The empty file input a browser sends when no file was chosen: readMultipart drops it.
      if (content.byteLength > 0) return null;
    } else {
      if (content.byteLength >= limits.maxFieldBytes) return null;
      const value = decodePartText(content.toString("latin1"), headers.charset);
      const values = fields.get(headers.name) ?? [];
      values.push({ value: value ?? "", truncated: false, invalidEncoding: value === null });
      fields.set(headers.name, values);
    }
    at = next + delimiter.length;
  }
}

/** A part's header block (its lines, without the blank line ending it), or `null`. */
function partHeaders(block: string): PartHeaders | null {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of block.split("\r\n")) {
    const match = HEADER_LINE.exec(line);
    if (!match) return null;
    const name = (match[1] as string).toLowerCase();
    const value = match[2] as string;
    if (name === "content-disposition" && disposition === undefined) disposition = value;
    else if (name === "content-type" && contentType === undefined) contentType = value;
    else return null;
  }
  if (disposition === undefined) return null;
  const params = dispositionParams(disposition);
  // busboy's rules: a part is a file when it names a file (either parameter, if not empty) or is
  // typed application/octet-stream; a part without a name is not one this reader takes.
  if (!params?.name || params["filename*"] || params.filename) return null;
  const type = contentType === undefined ? undefined : parseContentType(contentType);
  const charset = type?.params.charset;
  return {
    name: params.name,
    file: type !== undefined && `${type.type}/${type.subtype}` === "application/octet-stream",
    charset: typeof charset === "string" ? charset.toLowerCase() : null,
  };
}

/** A `form-data` disposition's parameters as busboy reads them; `null` for any other. */
function dispositionParams(disposition: string): Record<string, string | undefined> | null {
  const plain = PLAIN_FIELD.exec(disposition);
  if (plain) return { name: plain[1] };
  const parsed = parseDisposition(disposition, PARAM_DECODER);
  return parsed?.type === "form-data" ? parsed.params : null;
}
