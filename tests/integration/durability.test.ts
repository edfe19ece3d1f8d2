import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/server";

/**
 * "Durable" for the filesystem inbox means: before a brief is answered 200, its files are
 * fsynced, and so is every directory whose entry the save created or renamed, or a power cut can
 * lose the new entries though the file data is safe. No fault can be made from outside to show a
 * missing directory fsync, so this reads the system calls themselves: the app's own store code
 * (tests/support/durable-save.ts) saves a brief with an attachment and subscribes an address in a
 * fresh inbox under strace, and every mkdir, rename and link that succeeded must be followed by an
 * fsync of the directory that holds the new entry. `docs/robustness.md` shows how to run the same
 * trace by hand.
 */

interface Syscall {
  name: string;
  /** The paths the call names: quoted arguments, or the path strace prints for a file descriptor. */
  paths: string[];
  ok: boolean;
}

const TRACED = [
  "mkdir",
  "mkdirat",
  "rename",
  "renameat",
  "renameat2",
  "link",
  "linkat",
  "fsync",
  "fdatasync",
];

function parseTrace(trace: string): Syscall[] {
  const calls: Syscall[] = [];
  for (const line of trace.split("\n")) {
    const match = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (!match || !TRACED.includes(match[1] ?? "")) continue;
    const args = match[2] ?? "";
    const paths = [...args.matchAll(/"([^"]*)"|\d+<([^>]*)>/g)].map((found) => found[1] ?? found[2] ?? "");
    // A call strace shows as `<unfinished ...>` was started; it finished before the process exited.
    const ok = /<unfinished \.\.\.>$/.test(line) || /\)\s+=\s+0$/.test(line);
    calls.push({ name: match[1] ?? "", paths, ok });
  }
  return calls;
}

describe("filesystem inbox durability (system call trace)", () => {
  it("fsyncs each file before its rename, and every directory whose entries a save created or renamed, after the entry, also when saves share the sync", async () => {
    const dir = await tempDir("intake-durable-");
    const inbox = join(dir, "inbox");
    const tracePath = join(dir, "trace");
    const { stdout } = await promisify(execFile)(
      "strace",
      [
        "-f",
        "-y",
        "-qq",
        "-o",
        tracePath,
        "-e",
        `trace=${TRACED.join(",")}`,
        process.execPath,
        "--import",
        "tsx",
        "tests/support/durable-save.ts",
        inbox,
      ],
      { timeout: 60_000 },
    );
    const { folder, status, concurrent } = JSON.parse(stdout) as {
      folder: string;
      status: string;
      concurrent: string[];
    };
    expect(status).toBe("subscribed");
    // Eight briefs and eight subscriptions saved at once, sharing the folders' fsyncs.
    expect(concurrent.slice(0, 8)).toEqual(
      Array.from({ length: 8 }, (_, i) => expect.stringMatching(new RegExp(`/K7QM-3XD9-PTWA-9${i}HC$`))),
    );
    expect(concurrent.slice(8)).toEqual(new Array(8).fill("subscribed"));

    const calls = parseTrace(await readFile(tracePath, "utf8")).filter((call) =>
      call.paths.some((path) => path.startsWith(dir)),
    );
    const syncedAfter = (index: number, directory: string) =>
      calls.slice(index + 1).some((call) => call.name === "fsync" && call.ok && call.paths[0] === directory);

    const changes = calls
      .map((call, index) => ({ call, index }))
      .filter(({ call }) => call.ok && call.name !== "fsync" && call.name !== "fdatasync");
    const created = changes.filter(({ call }) => call.name.startsWith("mkdir"));
    const placed = changes.filter(({ call }) => /^(rename|link)/.test(call.name));

    // What the saves did: the brief's folders made, files renamed into place, records linked.
    expect(created.map(({ call }) => call.paths[0])).toEqual(
      expect.arrayContaining([join(inbox, folder), join(inbox, "newsletter", "subscribers")]),
    );
    expect(placed.map(({ call }) => call.paths.at(-1))).toEqual(
      expect.arrayContaining([
        join(inbox, folder, "attachment.pdf"),
        join(inbox, folder, "brief.json"),
        expect.stringMatching(/\/newsletter\/subscribers\/[0-9a-f]{64}\.json$/),
      ]),
    );
    expect(placed.filter(({ call }) => call.paths.at(-1)?.endsWith("/brief.json"))).toHaveLength(9);
    expect(placed.filter(({ call }) => call.paths.at(-1)?.endsWith("/delivery.json"))).toHaveLength(8);
    expect(
      placed.filter(({ call }) => /\/subscribers\/[0-9a-f]{64}\.json$/.test(call.paths.at(-1) ?? "")),
    ).toHaveLength(9);

    for (const { call, index } of [...created, ...placed]) {
      const entry = call.paths.at(-1) ?? "";
      expect(
        syncedAfter(index, dirname(entry)),
        `fsync of ${dirname(entry)} after ${call.name} ${entry}`,
      ).toBe(true);
    }
    for (const { call, index } of placed) {
      const source = call.paths[0] ?? "";
      const fileSynced = calls
        .slice(0, index)
        .some((earlier) => earlier.name === "fsync" && earlier.ok && earlier.paths[0] === source);
      expect(fileSynced, `fsync of ${source} before it was placed`).toBe(true);
    }
  });
});
