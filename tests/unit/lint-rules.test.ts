import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

/** The rules that keep every dependency behind its public API (eslint.config.mjs, CONTRACT.md part 5). */

const eslint = new ESLint({ cwd: process.cwd() });

async function problems(source: string, filePath = "lib/probe.ts"): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId?.startsWith("no-restricted-"))
    .map((message) => message.message);
}

describe("the public-API lint rules", () => {
  // The first call loads the whole configuration (Next's and TypeScript's plugins).
  beforeAll(() => problems(""), 60_000);

  it.each([
    ['import { parseContentType } from "busboy/lib/utils.js";', "lib/probe.ts"],
    ['import { parseConnectionUrl } from "nodemailer/lib/shared";', "lib/probe.ts"],
    ['import { Dispatcher } from "undici/lib/dispatcher/dispatcher";', "app/probe.ts"],
    ['import { x } from "@scope/package/dist/internal.js";', "components/probe.tsx"],
    ['import { setFlagsFromString } from "node:v8";', "lib/probe.ts"],
    ['import v8 from "v8";\nv8.setFlagsFromString("--expose-gc");', "scripts/probe.ts"],
    ['import vm from "node:vm";\nvm.runInNewContext("gc");', "lib/probe.ts"],
  ])("refuses %s", async (source, filePath) => {
    expect(await problems(source, filePath)).not.toEqual([]);
  });

  it.each([
    'import type SMTPTransport from "nodemailer/lib/smtp-transport";',
    'import MailComposer from "nodemailer/lib/mail-composer";',
    'import { upload } from "@vercel/blob/client";',
    'import { after } from "next/server";',
    'import v8 from "node:v8";\nv8.getHeapStatistics();',
  ])("lets %s through", async (source) => {
    expect(await problems(source)).toEqual([]);
  });
});
