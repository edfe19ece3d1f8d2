import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { formSettingsBody } from "@/lib/http/responses";
import { FilesystemStore } from "@/lib/store/filesystem";
import { formSettings } from "@/lib/site/form-settings";

/**
 * What the prerendered forms learn at run time (`GET /api/form-settings`), from the configuration
 * as the start parses it: the studio's address only where a visitor may need it, when human
 * verification is on and Cloudflare's script may fail to load in their browser.
 */

const TURNSTILE = {
  TURNSTILE_SITE_KEY: "0x4AAAAAAAsitekeyfortests",
  TURNSTILE_SECRET_KEY: "0x4AAAAAAAsecretkeyfortests",
};
const EMAIL_CHANNEL = {
  SMTP_URL: "smtp://mail.example:587",
  EMAIL_FROM: "Studio <intake@studio.example>",
  EMAIL_TO: "studio@studio.example, producer@studio.example",
};
const REPLY_TO = { EMAIL_REPLY_TO: "Northwind Studio <hello@studio.example>" };

function settingsFor(env: Record<string, string>) {
  const settings = formSettings({ config: parseConfig(env), store: new FilesystemStore("/nonexistent") });
  expect(formSettingsBody.strict().parse(settings)).toEqual(settings);
  return settings;
}

describe("the forms' settings", () => {
  it.each<[string, Record<string, string>, string]>([
    [
      "EMAIL_REPLY_TO, without its display name",
      { ...TURNSTILE, ...EMAIL_CHANNEL, ...REPLY_TO },
      "hello@studio.example",
    ],
    ["else the first EMAIL_TO", { ...TURNSTILE, ...EMAIL_CHANNEL }, "studio@studio.example"],
    ["EMAIL_REPLY_TO without the email channel", { ...TURNSTILE, ...REPLY_TO }, "hello@studio.example"],
  ])("with Turnstile on, name the studio's address: %s", (_case, env, address) => {
    expect(settingsFor(env)).toEqual({
      upload: "form",
      turnstileSiteKey: TURNSTILE.TURNSTILE_SITE_KEY,
      studioEmail: address,
    });
  });

  it.each<[string, Record<string, string>]>([
    ["Turnstile on, no address set", TURNSTILE],
    ["Turnstile off, addresses set", { ...EMAIL_CHANNEL, ...REPLY_TO }],
    ["nothing set", {}],
  ])("leave the address out otherwise: %s", (_case, env) => {
    expect(Object.keys(settingsFor(env)).sort()).toEqual(["turnstileSiteKey", "upload"]);
  });

  it("EMAIL_REPLY_TO is not reported unused while Turnstile is on", () => {
    expect(parseConfig({ ...TURNSTILE, ...REPLY_TO }).warnings).not.toContainEqual(
      expect.stringContaining("EMAIL_REPLY_TO"),
    );
    expect(parseConfig(REPLY_TO).warnings).toContainEqual(expect.stringContaining("EMAIL_REPLY_TO"));
  });
});
