import PostalMime, { type Email } from "postal-mime";
import { SMTPServer } from "smtp-server";

/** One message as the SMTP server accepted it. */
export interface ReceivedMail {
  /** The SMTP envelope: who the message was really sent to, whatever its headers say. */
  envelope: { from: string; to: string[] };
  /** The user the client logged in as, if it did. */
  user: string | null;
  raw: Buffer;
  parsed: Email;
}

/** How the server treats the next messages: take them, refuse them with a code, or never answer the DATA. */
export type SmtpBehaviour = "accept" | { refuse: number } | "hang";

export interface SmtpTestServer {
  port: number;
  /** An `smtp://` URL for SMTP_URL, with the credentials when the server requires them. */
  url: string;
  received: ReceivedMail[];
  behave(behaviour: SmtpBehaviour): void;
  /** The messages whose subject mentions this brief reference. */
  forReference(reference: string): ReceivedMail[];
  stop(): Promise<void>;
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1, plain text (no STARTTLS, like a
 * local relay), optionally requiring a login. Every accepted message is parsed with postal-mime.
 */
export async function startSmtpServer(
  options: { auth?: { user: string; pass: string } } = {},
): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  let behaviour: SmtpBehaviour = "accept";
  const { auth } = options;

  const server = new SMTPServer({
    logger: false,
    // close() otherwise waits up to 30 s for clients that are still connected.
    closeTimeout: 500,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !auth,
    allowInsecureAuth: true,
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
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (current === "hang") return;
        if (typeof current === "object") {
          const error = new Error("Message refused by the test server") as Error & { responseCode: number };
          error.responseCode = current.refuse;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks);
        void PostalMime.parse(raw).then((parsed) => {
          received.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((recipient) => recipient.address),
            },
            user: typeof session.user === "string" ? session.user : null,
            raw,
            parsed,
          });
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : "";

  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    behave: (next) => (behaviour = next),
    forReference: (reference) => received.filter((mail) => mail.parsed.subject?.includes(reference)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
