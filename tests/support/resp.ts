import { connect, type Socket } from "node:net";

/** A Redis reply in RESP2: simple strings and bulk strings keep their bytes. */
export type RespReply = Buffer | number | null | RespError | RespReply[];

export class RespError extends Error {
  override name = "RespError";
}

interface Pending {
  resolve: (reply: RespReply) => void;
  reject: (error: Error) => void;
}

/**
 * The smallest Redis client the tests need, over node:net: commands are pipelined on one
 * connection and answered in order. No client package is installed, and none is needed for this.
 */
export class RespClient {
  private readonly socket: Socket;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private closedWith: Error | null = null;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (data: Buffer) => this.receive(data));
    const closed = (error: Error) => {
      this.closedWith ??= error;
      for (const waiting of this.pending.splice(0)) waiting.reject(this.closedWith);
    };
    socket.on("error", closed);
    socket.on("close", () => closed(new Error("Redis connection closed")));
  }

  static connect(port: number, host = "127.0.0.1", timeoutMs = 2_000): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`No connection to Redis at ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        resolve(new RespClient(socket));
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  command(args: readonly (string | Buffer)[]): Promise<RespReply> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const bytes = typeof arg === "string" ? Buffer.from(arg, "utf8") : arg;
      parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.socket.write(Buffer.concat(parts));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(data: Buffer): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    for (;;) {
      const parsed = parseReply(this.buffer, 0);
      if (parsed === null) return;
      this.buffer = this.buffer.subarray(parsed.end);
      this.pending.shift()?.resolve(parsed.reply);
    }
  }
}

/** One reply starting at `offset`, or `null` while it has not fully arrived. */
function parseReply(buffer: Buffer, offset: number): { reply: RespReply; end: number } | null {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd === -1) return null;
  const type = String.fromCharCode(buffer[offset] ?? 0);
  const line = buffer.subarray(offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { reply: Buffer.from(line), end: next };
    case "-":
      return { reply: new RespError(line.toString("utf8")), end: next };
    case ":":
      return { reply: Number(line.toString("ascii")), end: next };
    case "$": {
      const length = Number(line.toString("ascii"));
      if (length < 0) return { reply: null, end: next };
      if (buffer.length < next + length + 2) return null;
      return { reply: Buffer.from(buffer.subarray(next, next + length)), end: next + length + 2 };
    }
    case "*": {
      const count = Number(line.toString("ascii"));
      if (count < 0) return { reply: null, end: next };
      const items: RespReply[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, end);
        if (item === null) return null;
        items.push(item.reply);
        end = item.end;
      }
      return { reply: items, end };
    }
    default:
      throw new Error(`Unexpected RESP type ${JSON.stringify(type)}`);
  }
}
