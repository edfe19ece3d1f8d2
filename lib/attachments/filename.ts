/** Longest name kept, in Unicode code points (extension included). */
export const MAX_FILE_NAME_CODE_POINTS = 200;

/** Used when nothing usable is left of the name the client sent. */
export const FALLBACK_FILE_NAME = "attachment";

/** Longest ending (dot included) still treated as an extension worth keeping when a name is shortened. */
const MAX_KEPT_EXTENSION_CODE_POINTS = 16;

/**
 * C0 controls, DEL, C1 controls; the bidi embedding/override/isolate controls (U+202A–U+202E,
 * U+2066–U+2069), which can make `cod.exe` display as `exe.doc`, and the invisible bidi marks
 * (U+200E, U+200F, U+061C) for good measure.
 */
const UNWANTED_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;

/** Unpaired UTF-16 surrogates cannot be encoded as UTF-8; they become U+FFFD. */
const LONE_SURROGATE = /\p{Surrogate}/gu;

const EDGE_SPACES_AND_DOTS = /^[\s.]+|[\s.]+$/gu;

/**
 * The client's file name, made safe to keep as metadata (it is never used as a path):
 * the directory part is dropped (after the last `/` or `\`), control and bidi characters are removed,
 * spaces and dots are trimmed at both ends, the result is NFC-normalised and capped at
 * {@link MAX_FILE_NAME_CODE_POINTS} code points, keeping the extension where possible.
 * Falls back to {@link FALLBACK_FILE_NAME} when nothing is left.
 */
export function cleanFileName(name: string): string {
  let cleaned = name.replace(LONE_SURROGATE, "\ufffd").replace(UNWANTED_CHARACTERS, "");
  cleaned = cleaned.slice(Math.max(cleaned.lastIndexOf("/"), cleaned.lastIndexOf("\\")) + 1);
  cleaned = trimEdges(cleaned.normalize("NFC"));
  cleaned = capLength(cleaned);
  return cleaned === "" ? FALLBACK_FILE_NAME : cleaned;
}

function trimEdges(value: string): string {
  return value.replace(EDGE_SPACES_AND_DOTS, "");
}

function capLength(name: string): string {
  if (codePointLength(name) <= MAX_FILE_NAME_CODE_POINTS) return name;

  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot) : "";
  const keepExtension =
    extension.length > 1 &&
    codePointLength(extension) <= MAX_KEPT_EXTENSION_CODE_POINTS &&
    !/\s/u.test(extension);
  const suffix = keepExtension ? extension : "";
  const stem = keepExtension ? name.slice(0, dot) : name;

  const shortened = trimEdges(truncate(stem, MAX_FILE_NAME_CODE_POINTS - codePointLength(suffix)));
  // A stem made only of spaces/dots after truncation: keep the plain truncation instead.
  return shortened === "" ? trimEdges(truncate(name, MAX_FILE_NAME_CODE_POINTS)) : shortened + suffix;
}

/** Code points in `value` (a well-formed string: every surrogate is paired). */
function codePointLength(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    if (!isHighSurrogate(value.charCodeAt(index))) count++;
  }
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });

/**
 * The longest prefix of at most `maxCodePoints` code points that does not split a grapheme cluster
 * (so an accent or an emoji sequence is never cut in half), unless the first cluster alone is too long.
 */
function truncate(value: string, maxCodePoints: number): string {
  let result = "";
  let used = 0;
  for (const { segment } of graphemes.segment(value)) {
    const size = codePointLength(segment);
    if (used + size > maxCodePoints) {
      if (result === "") return Array.from(segment).slice(0, maxCodePoints).join("");
      break;
    }
    result += segment;
    used += size;
  }
  return result;
}
