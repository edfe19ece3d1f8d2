import { describe, expect, it } from "vitest";
import {
  declaredUploadType,
  newStagingId,
  parseStagedUploadPath,
  stagedFileName,
  stagedUploadPath,
  UPLOAD_CONTENT_TYPES,
} from "@/lib/schemas/staged-upload";

const ID = "0123456789abcdef0123456789abcdef";

describe("parseStagedUploadPath", () => {
  it.each<[string, { id: string; name: string }]>([
    [`staging/${ID}/brief.pdf`, { id: ID, name: "brief.pdf" }],
    [`staging/${ID}/Project brief (v2).docx`, { id: ID, name: "Project brief (v2).docx" }],
    [`staging/${ID}/Über_uns 日本.md`, { id: ID, name: "Über_uns 日本.md" }],
    [`staging/${ID}/attachment`, { id: ID, name: "attachment" }],
  ])("accepts %j", (path, expected) => {
    expect(parseStagedUploadPath(path)).toEqual(expected);
  });

  it.each([
    ["another prefix", `briefs/2026/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf`],
    ["a prefix that only starts like staging", `staging-old/${ID}/brief.pdf`],
    ["no id", "staging/brief.pdf"],
    ["a short id", `staging/${ID.slice(1)}/brief.pdf`],
    ["an uppercase id", `staging/${ID.toUpperCase()}/brief.pdf`],
    ["a non-hex id", `staging/${"g".repeat(32)}/brief.pdf`],
    ["a parent segment", `staging/${ID}/../briefs/x.pdf`],
    ["a parent segment as the name", `staging/${ID}/..`],
    ["a dot as the name", `staging/${ID}/.`],
    ["an extra segment", `staging/${ID}/a/brief.pdf`],
    ["an empty name", `staging/${ID}/`],
    ["a leading slash", `/staging/${ID}/brief.pdf`],
    ["a double slash", `staging//${ID}/brief.pdf`],
    ["a backslash path", `staging/${ID}/..\\briefs\\x.pdf`],
    ["a control character", `staging/${ID}/brief\n.pdf`],
    ["a question mark", `staging/${ID}/brief?.pdf`],
    ["a percent escape", `staging/${ID}/%2e%2e`],
    ["a name with edge spaces", `staging/${ID}/ brief.pdf`],
    ["a name over 200 code points", `staging/${ID}/${"a".repeat(201)}.pdf`],
    ["an empty string", ""],
  ])("refuses %s", (_label, path) => {
    expect(parseStagedUploadPath(path)).toBeNull();
  });
});

describe("stagedUploadPath", () => {
  it.each([
    ["brief.pdf", "brief.pdf"],
    ["C:\\Users\\ada\\brief.pdf", "brief.pdf"],
    ["../../etc/passwd", "passwd"],
    ["100% final #2?.pdf", "100_ final _2_.pdf"],
    ["..", "attachment"],
    ["  .hidden.txt  ", "hidden.txt"],
  ])("names %j as %j, which parses back", (name, cleaned) => {
    const path = stagedUploadPath(ID, name);
    expect(path).toBe(`staging/${ID}/${cleaned}`);
    expect(stagedFileName(cleaned)).toBe(cleaned);
    expect(parseStagedUploadPath(path)).toEqual({ id: ID, name: cleaned });
  });

  it("draws 128-bit ids that parse, never the same twice", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newStagingId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(parseStagedUploadPath(stagedUploadPath(id, "a.pdf"))).not.toBeNull();
  });
});

describe("declaredUploadType", () => {
  it.each<[string, string | null]>([
    ["brief.pdf", "application/pdf"],
    ["BRIEF.PDF", "application/pdf"],
    ["brief.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    ["shot.png", "image/png"],
    ["photo.jpg", "image/jpeg"],
    ["photo.jpeg", "image/jpeg"],
    ["notes.txt", "text/plain"],
    ["notes.md", "text/markdown"],
    ["archive.zip", null],
    ["no-extension", null],
    ["brief.pdf.exe", null],
    ["constructor", null],
    ["x.constructor", null],
  ])("%s -> %s", (name, type) => {
    expect(declaredUploadType(name)).toBe(type);
  });

  it("allows each declared type once", () => {
    expect([...UPLOAD_CONTENT_TYPES].sort()).toEqual(
      [
        "application/pdf",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "image/jpeg",
        "image/png",
        "text/markdown",
        "text/plain",
      ].sort(),
    );
  });
});
