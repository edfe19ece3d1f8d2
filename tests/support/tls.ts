import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * A throwaway self-signed certificate for `hostname` (a name, or an IP address such as 127.0.0.1),
 * made with the `openssl` command (Node cannot issue certificates itself): for a local server that
 * a test browser, told to accept any certificate, reaches under a real host's name, or that a
 * process trusts as its own CA (`NODE_EXTRA_CA_CERTS` pointing at `cert`). Valid for one day;
 * never written anywhere kept.
 */
export async function selfSignedCertificate(hostname: string): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), "tls-"));
  try {
    await promisify(execFile)("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${hostname}`,
      "-addext",
      `subjectAltName=${isIP(hostname) ? "IP" : "DNS"}:${hostname}`,
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    return {
      key: await readFile(join(dir, "key.pem"), "utf8"),
      cert: await readFile(join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
