import type { Config } from "../config";
import { acceptsStagedUploads } from "../contact/staging";
import type { ObjectStore } from "../store";
import { widgetSiteKey } from "../verification";

/** What the settings are read from; the app's services (lib/services.ts) have all of it. */
export interface FormSettingsServices {
  store: ObjectStore;
  config: Config;
}

/**
 * What the forms need to know about the configuration, which is read at run time while the pages
 * are prerendered at build: one build serves every mode, and a changed variable needs a restart,
 * never a rebuild. The forms ask for it (`GET /api/form-settings`) when a visitor starts on one.
 * Public values only.
 */
export interface FormSettings {
  /**
   * Where a chosen file goes: in the form's own body, or (`blob`, the Vercel Blob inbox) straight
   * to the store first, since a function on Vercel takes at most 4.5 MB.
   */
  upload: "form" | "blob";
  /** Cloudflare Turnstile's public site key when human verification is on, else `null`. */
  turnstileSiteKey: string | null;
  /**
   * The studio's address (`EMAIL_REPLY_TO`, else the first `EMAIL_TO`), for a visitor whose browser
   * cannot load Turnstile's script and so cannot send the forms: only with verification on and an
   * address set. Already public: every acknowledgment's `Reply-To` names it.
   */
  studioEmail?: string;
}

export function formSettings(services: FormSettingsServices): FormSettings {
  const turnstileSiteKey = widgetSiteKey(services.config);
  const studioEmail = turnstileSiteKey ? services.config.replyTo?.address : undefined;
  return {
    upload: acceptsStagedUploads(services.store) ? "blob" : "form",
    turnstileSiteKey,
    ...(studioEmail ? { studioEmail } : {}),
  };
}
