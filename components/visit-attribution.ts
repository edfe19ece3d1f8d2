import { UTM_KEYS, type UtmKey } from "@/lib/schemas/utm";

/**
 * Where this visit came from, kept in `sessionStorage` for the visit (the tab) and sent with the
 * forms: the first external referrer and the first `utm_*` parameters seen (first touch: a later
 * page with other parameters does not replace them). Browser-only; every storage call may throw
 * (storage off, private mode, quota), and then the forms simply send less.
 */

const STORAGE_KEY = "studio-intake:visit";

interface Visit {
  referrer?: string;
  utm?: Partial<Record<UtmKey, string>>;
}

function readVisit(): Visit {
  try {
    const value: unknown = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? "{}");
    return typeof value === "object" && value !== null ? (value as Visit) : {};
  } catch {
    return {};
  }
}

/** The referrer when it is another site's: moving between our own pages is not where a visit came from. */
function externalReferrer(): string | undefined {
  try {
    if (document.referrer === "") return undefined;
    return new URL(document.referrer).origin === window.location.origin ? undefined : document.referrer;
  } catch {
    return undefined;
  }
}

/** The `utm_*` parameters of the page's address; `undefined` when it has none. */
function utmOfThisPage(): Visit["utm"] {
  const params = new URLSearchParams(window.location.search);
  const utm: Partial<Record<UtmKey, string>> = {};
  for (const key of UTM_KEYS) {
    const value = params.get(`utm_${key}`);
    if (value) utm[key] = value;
  }
  return Object.keys(utm).length > 0 ? utm : undefined;
}

/** Notes this page's referrer and `utm_*` parameters, unless the visit already has them. */
export function rememberVisit(): void {
  const visit = readVisit();
  const next: Visit = { ...visit };
  next.referrer ??= externalReferrer();
  next.utm ??= utmOfThisPage();
  if (next.referrer === visit.referrer && next.utm === visit.utm) return;
  try {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Not kept: the form still sends this page and its own parameters below.
  }
}

/** This page's path and query: a form's `page`. */
export function currentPage(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/**
 * The form fields a form sends about the visit: `page` (this page's path and query), `referrer`
 * and `utm_*` when known. The server keeps those that follow its rules and drops the rest.
 */
export function visitFields(): Record<string, string> {
  rememberVisit();
  const visit = readVisit();
  const fields: Record<string, string> = { page: currentPage() };
  const referrer = visit.referrer ?? externalReferrer();
  if (referrer) fields.referrer = referrer;
  const utm = visit.utm ?? utmOfThisPage() ?? {};
  for (const key of UTM_KEYS) {
    const value = utm[key];
    if (value) fields[`utm_${key}`] = value;
  }
  return fields;
}
