import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface AppServer {
  url: string;
  port: number;
  /** The spawned process: `next start` itself, or the `launcher`, which execs into it. */
  pid: number;
  /** Everything the server printed, for assertions on logged warnings. */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function tempDir(prefix = "intake-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export interface StartOptions {
  /**
   * A command to start the server through, which must exec the command line it is given (so the
   * server keeps its pid), e.g. `["prlimit", "--fsize=1048576"]` to run it under a file-size limit.
   */
  launcher?: readonly string[];
  /**
   * What "started" means: `health` (the default) waits until `/api/health` answers; `ready` only
   * until `next start` says it is ready and takes a connection, so no route has been loaded yet
   * (the cold-start bench).
   */
  readiness?: "health" | "ready";
}

/**
 * Starts the built app with `next start` on a free port, with only the given variables set
 * (plus PATH and HOME), and waits until it answers `/api/health` (or, with `readiness: "ready"`,
 * until it says it is ready and takes a connection).
 */
export async function startApp(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<AppServer> {
  const port = await freePort();
  const [command = process.execPath, ...args] = [
    ...(options.launcher ?? []),
    process.execPath,
    "node_modules/next/dist/bin/next",
    "start",
    "--port",
    String(port),
    "--hostname",
    "127.0.0.1",
  ];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SITE_URL: `http://127.0.0.1:${port}`,
      IP_HASH_SALT: "test-salt",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, url, () => output, options.readiness ?? "health");
  return { url, port, pid: child.pid ?? 0, output: () => output, stop: () => stopProcess(child) };
}

async function waitUntilReady(
  child: ChildProcess,
  url: string,
  output: () => string,
  readiness: "health" | "ready",
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`next start exited with ${child.exitCode}:\n${output()}`);
    }
    try {
      if (readiness === "ready") {
        if (/\bReady in\b/.test(output())) {
          await connects(new URL(url));
          return;
        }
        throw new Error("not ready yet");
      }
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopProcess(child);
  throw new Error(`next start did not answer within 60 s:\n${output()}`);
}

/** Resolves once a TCP connection to `url`'s host and port opens (and closes it); rejects otherwise. */
function connects(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", reject);
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `next start` expecting it to fail, and returns its exit code and output. */
export async function startAppExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "--port", String(port)],
    {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) =>
    child.once("exit", (exitCode) => resolve(exitCode)),
  );
  clearTimeout(timer);
  return { code, output };
}

/**
 * An INBOX_DIR that cannot be created: its parent is a regular file. (Permissions would not do:
 * the tests may run as root.)
 */
export async function unwritableInboxDir(): Promise<string> {
  const file = join(await tempDir(), "not-a-directory");
  await writeFile(file, "");
  return join(file, "inbox");
}
