import { readdir, readFile, readlink, writeFile } from "node:fs/promises";

/**
 * What Linux's /proc says about a server process: which process holds a listening socket, its
 * resident memory, the bytes it has read and the CPU time it has used.
 */

/** Socket inodes listening on `port` (IPv4 and IPv6 tables). */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      const state = columns[3];
      const inode = columns[9];
      if (!local || !inode || state !== "0A") continue; // 0A: LISTEN
      if (Number.parseInt(local.split(":").at(-1) ?? "", 16) === port) inodes.add(inode);
    }
  }
  return inodes;
}

async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const children: number[] = [];
  for (const task of tasks) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    children.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return children;
}

/**
 * The process, among `root` and its descendants, that holds the socket listening on `port`:
 * `next start` may serve from the process it was started as or from a child it spawns.
 */
export async function listeningPid(root: number, port: number): Promise<number> {
  const inodes = await listeningInodes(port);
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) return pid;
    }
    queue.push(...(await childrenOf(pid)));
  }
  throw new Error(`no process under ${root} listens on port ${port}`);
}

/** `VmRSS` (resident now) and `VmHWM` (peak resident since start or the last reset), in bytes. */
export async function residentMemory(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS") * 1024, hwm: kib("VmHWM") * 1024 };
}

/** Resets `VmHWM` to the current resident size (`5` in clear_refs); false where not permitted. */
export async function resetPeakMemory(pid: number): Promise<boolean> {
  return writeFile(`/proc/${pid}/clear_refs`, "5").then(
    () => true,
    () => false,
  );
}

/** Bytes the process has read through read-like system calls (sockets and files alike). */
export async function bytesRead(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, "utf8");
  return Number(/^rchar:\s+(\d+)/m.exec(io)?.[1] ?? NaN);
}

/** Fields 14 to 17 of a /proc stat line: utime, stime, cutime, cstime, in milliseconds. */
async function statTimes(path: string): Promise<{ own: number; waitedChildren: number } | null> {
  const stat = await readFile(path, "utf8").catch(() => null);
  if (stat === null) return null;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  // Linux reports these in USER_HZ, which is 100 on every architecture it supports.
  const ms = (index: number) => (fields[index] ?? NaN) * 10;
  return { own: ms(11) + ms(12), waitedChildren: ms(13) + ms(14) };
}

/**
 * User + system CPU time in milliseconds: of the whole process (every thread), or of one of its
 * threads when `thread` is given (the main thread's id is the process id).
 */
export async function cpuMilliseconds(pid: number, thread?: number): Promise<number> {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const times = await statTimes(path);
  if (times === null) throw new Error(`no process ${pid}`);
  return times.own;
}

/**
 * The CPU time of a process tree (`next start` and every process under it), which never goes
 * backwards while processes come and go. Each live process counts its own time (every thread, live
 * or ended) and its waited-for children's (`cutime`, `cstime`): a child that ends and is reaped moves
 * its whole time, its own reaped children's included, into its parent's figures, so it still counts.
 * The tree is read parents first; a child reaped between its parent's read and its own would be
 * missing from that one reading (its time not yet in the parent's), so the total is the highest
 * reading so far. A descendant orphaned out of the tree (its parent ended before it) would stop
 * counting; `next start` never leaves one.
 */
export class ProcessTreeCpu {
  private highest = 0;

  constructor(readonly root: number) {}

  /** Milliseconds of user + system CPU time the tree has used so far. */
  async milliseconds(): Promise<number> {
    let total = 0;
    const queue = [this.root];
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      const times = await statTimes(`/proc/${pid}/stat`);
      if (times === null) continue; // ended and reaped since its parent listed it: counted there
      total += times.own + times.waitedChildren;
      queue.push(...(await childrenOf(pid)));
    }
    if (!Number.isFinite(total)) throw new Error(`unreadable CPU times under ${this.root}`);
    this.highest = Math.max(this.highest, total);
    return this.highest;
  }

  /** The pids in the tree now (for the report). */
  async pids(): Promise<number[]> {
    const found: number[] = [];
    const queue = [this.root];
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      found.push(pid);
      queue.push(...(await childrenOf(pid)));
    }
    return found;
  }
}
