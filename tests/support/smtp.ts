import type { Socket } from "node:net";
import PostalMime, { type Email } from "postal-mime";
import { SMTPServer } from "smtp-server";

/** One message as the SMTP server accepted it. */
export interface ReceivedMail {
  /** The SMTP envelope: who the message was really sent to, whatever its headers say. */
  envelope: { from: string; to: string[] };
  /** The user the client logged in as, if it did. */
  user: string | null;
  /** Whether the session was encrypted (upgraded with STARTTLS) when the message came. */
  secure: boolean;
  raw: Buffer;
  parsed: Email;
}

/** How the server treats the next messages: take them, refuse them with a code, or never answer the DATA. */
export type SmtpBehaviour = "accept" | { refuse: number } | "hang";

/** A command the server received (its name only, never its arguments), and whether it came over TLS. */
export interface SmtpCommand {
  name: string;
  secure: boolean;
}

export interface SmtpTestServer {
  port: number;
  /** An `smtp://` URL for SMTP_URL, with the credentials when the server requires them. */
  url: string;
  received: ReceivedMail[];
  /** The envelope of every accepted message, kept even when `envelopesOnly` keeps nothing else. */
  envelopes: ReceivedMail["envelope"][];
  /** How many connections clients have opened so far. */
  connectionsOpened(): number;
  /** Closes every open client connection at once, as a server restarting or timing them out does. */
  dropConnections(): void;
  /** Errors of client connections (a reset, a timeout), which the server outlives. */
  connectionErrors: Error[];
  /** Every command any client sent, in order, whether or not the server accepted it. */
  commands: SmtpCommand[];
  behave(behaviour: SmtpBehaviour): void;
  /** The messages whose subject mentions this brief reference. */
  forReference(reference: string): ReceivedMail[];
  stop(): Promise<void>;
}

export interface SmtpServerOptions {
  /** Require this login before any mail. */
  auth?: { user: string; pass: string };
  /**
   * Offer STARTTLS with this certificate. Without it the server is plain text only and does not
   * even recognise STARTTLS, like a local relay (or a connection whose STARTTLS was stripped).
   */
  starttls?: { key: string; cert: string };
  /**
   * Accept messages without parsing or keeping them, recording only their envelopes (`received`
   * stays empty): for a load that sends thousands, where parsing each would compete for the CPU.
   */
  envelopesOnly?: boolean;
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1, optionally requiring a login and
 * optionally offering STARTTLS. A login is accepted over plain text too (`allowInsecureAuth`), like
 * a careless server: whether credentials cross in the clear is up to the client under test. Every
 * accepted message is parsed with postal-mime; every command is recorded.
 */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const envelopes: ReceivedMail["envelope"][] = [];
  const connectionErrors: Error[] = [];
  const commands: SmtpCommand[] = [];
  /** Connections (by session id) upgraded with STARTTLS. */
  const secured = new Set<string>();
  let behaviour: SmtpBehaviour = "accept";
  const { auth, starttls } = options;

  // smtp-server logs each command it reads at debug level, before it decides anything about it:
  // the one place that sees a command the server then refuses.
  const record = (entry: { tnx?: string; cid?: string; command?: string }) => {
    if (entry.tnx === "command" && entry.command) {
      commands.push({ name: entry.command.toUpperCase(), secure: secured.has(entry.cid ?? "") });
    }
  };
  const quiet = () => {};

  const server = new SMTPServer({
    logger: { trace: quiet, debug: record, info: quiet, warn: quiet, error: quiet, fatal: quiet },
    // close() otherwise waits up to 30 s for clients that are still connected.
    closeTimeout: 500,
    disabledCommands: [...(starttls ? [] : ["STARTTLS"]), ...(auth ? [] : ["AUTH"])],
    ...(starttls ? { key: starttls.key, cert: starttls.cert } : {}),
    authOptional: !auth,
    allowInsecureAuth: true,
    onSecure(_socket, session, callback) {
      secured.add(session.id);
      callback();
    },
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.pass) {
        callback(null, { user: credentials.username });
      } else {
        callback(new Error("Invalid username or password"));
      }
    },
    onData(stream, session, callback) {
      const current = behaviour;
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => {
        if (!options.envelopesOnly) chunks.push(chunk);
      });
      stream.on("end", () => {
        if (current === "hang") return;
        if (typeof current === "object") {
          const error = new Error("Message refused by the test server") as Error & { responseCode: number };
          error.responseCode = current.refuse;
          callback(error);
          return;
        }
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
        };
        if (options.envelopesOnly) {
          envelopes.push(envelope);
          callback();
          return;
        }
        const raw = Buffer.concat(chunks);
        void PostalMime.parse(raw).then((parsed) => {
          envelopes.push(envelope);
          received.push({
            envelope,
            user: typeof session.user === "string" ? session.user : null,
            secure: session.secure,
            raw,
            parsed,
          });
          callback();
        }, callback);
      });
    },
  });
  // A client dropping its connection (a server under test being stopped mid-send) is reported
  // here; unhandled, it would end the process running the tests.
  server.on("error", (error) => connectionErrors.push(error));
  const sockets = new Set<Socket>();
  let opened = 0;
  server.server.on("connection", (socket: Socket) => {
    opened += 1;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : "";

  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    envelopes,
    connectionsOpened: () => opened,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    connectionErrors,
    commands,
    behave: (next) => (behaviour = next),
    forReference: (reference) => received.filter((mail) => mail.parsed.subject?.includes(reference)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
