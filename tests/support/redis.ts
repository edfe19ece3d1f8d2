import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { RespClient } from "./resp";
import { freePort } from "./server";

export interface RedisServer {
  port: number;
  /** A fresh connection, for tests that look at what the app wrote. */
  connect(): Promise<RespClient>;
  /** SIGSTOP: the process keeps its port but answers nothing, like a Redis that hangs. */
  pause(): void;
  resume(): void;
  /** SIGKILL: gone at once, connections reset. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Where `redis-server` is on PATH; these tests need a real one and never skip without it. */
export function findRedisServer(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this one
    }
  }
  throw new Error(
    "redis-server is not on PATH. The rate-limit tests run against a real Redis: install it " +
      "(`apt-get install redis-server`; .ci/run does this when it is missing).",
  );
}

/**
 * A throwaway redis-server on a free loopback port: no snapshots, no append-only file, its working
 * directory in a temporary folder that is removed on stop.
 */
export async function startRedis(): Promise<RedisServer> {
  const binary = findRedisServer();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "intake-redis-"));
  const child = spawn(
    binary,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--daemonize",
      "no",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));

  try {
    await waitForPing(child, port, () => output);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT"); // a paused process would not act on SIGTERM
      child.kill(signal);
    }
    await exited;
  };

  return {
    port,
    connect: () => RespClient.connect(port),
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    kill: () => end("SIGKILL"),
    stop: async () => {
      await end("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPing(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${output()}`);
    try {
      const client = await RespClient.connect(port, "127.0.0.1", 500);
      const reply = await client.command(["PING"]);
      client.close();
      if (Buffer.isBuffer(reply) && reply.toString() === "PONG") return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer PING within 10 s:\n${output()}`);
}
