import { describe, expect, it } from "vitest";
import { isCrossOrigin, requestOrigin, requestSite } from "@/lib/http/origin";

const allowed = {
  siteOrigin: "https://studio.example",
  allowedOrigins: ["https://partner.example", "http://localhost:4000"],
};

type HeaderSet = Record<string, string>;

describe("isCrossOrigin", () => {
  it.each<[string, HeaderSet, boolean]>([
    // same origin via Host (no proxy headers: http)
    ["same origin via Host", { origin: "http://app.internal:3000", host: "app.internal:3000" }, false],
    ["same origin via Host, default port", { origin: "http://app.internal", host: "app.internal" }, false],
    // same origin via the proxy's headers
    [
      "same origin via X-Forwarded-Host/-Proto",
      {
        origin: "https://www.studio.example",
        host: "127.0.0.1:3000",
        "x-forwarded-host": "www.studio.example",
        "x-forwarded-proto": "https",
      },
      false,
    ],
    [
      "X-Forwarded-Host lists several hosts: the first counts",
      {
        origin: "https://www.studio.example",
        host: "127.0.0.1:3000",
        "x-forwarded-host": "www.studio.example, proxy.internal",
        "x-forwarded-proto": "https,http",
      },
      false,
    ],
    [
      "X-Forwarded-Host takes precedence over Host",
      {
        origin: "http://127.0.0.1:3000",
        host: "127.0.0.1:3000",
        "x-forwarded-host": "www.studio.example",
        "x-forwarded-proto": "https",
      },
      true,
    ],
    [
      "X-Forwarded-Proto applies to Host when X-Forwarded-Host is absent",
      { origin: "https://app.internal", host: "app.internal", "x-forwarded-proto": "https" },
      false,
    ],
    // configured origins
    ["SITE_URL's origin", { origin: "https://studio.example", host: "10.0.0.5:3000" }, false],
    ["SITE_URL's origin with no Host at all", { origin: "https://studio.example" }, false],
    ["an ALLOWED_ORIGINS entry", { origin: "https://partner.example", host: "10.0.0.5:3000" }, false],
    ["another ALLOWED_ORIGINS entry", { origin: "http://localhost:4000", host: "10.0.0.5:3000" }, false],
    // foreign or unusable origins
    ["a foreign origin", { origin: "https://evil.example", host: "studio.example" }, true],
    ["a sub-domain of the site", { origin: "https://evil.studio.example", host: "10.0.0.5" }, true],
    ['the string "null"', { origin: "null", host: "studio.example" }, true],
    [
      '"null" even with Sec-Fetch-Site same-origin',
      { origin: "null", "sec-fetch-site": "same-origin" },
      true,
    ],
    ["a malformed Origin", { origin: "not a url", host: "studio.example" }, true],
    ["an empty-host Origin", { origin: "https://", host: "studio.example" }, true],
    ["a non-http(s) Origin", { origin: "ftp://studio.example", host: "studio.example" }, true],
    ["a javascript: Origin", { origin: "javascript:alert(1)" }, true],
    // scheme and port are part of the origin
    [
      "scheme mismatch with the request (https vs http)",
      { origin: "https://app.internal:3000", host: "app.internal:3000" },
      true,
    ],
    ["scheme mismatch with SITE_URL", { origin: "http://studio.example", host: "10.0.0.5" }, true],
    ["port mismatch with the request", { origin: "http://localhost:3001", host: "localhost:3000" }, true],
    ["port mismatch with SITE_URL", { origin: "https://studio.example:8443", host: "10.0.0.5" }, true],
    ["port mismatch with an allowed origin", { origin: "http://localhost:4001", host: "10.0.0.5" }, true],
    // Origin decides when present; Sec-Fetch-Site only without it
    [
      "Origin foreign, Sec-Fetch-Site same-origin",
      { origin: "https://evil.example", "sec-fetch-site": "same-origin", host: "studio.example" },
      true,
    ],
    [
      "Origin same, Sec-Fetch-Site cross-site",
      { origin: "https://studio.example", "sec-fetch-site": "cross-site" },
      false,
    ],
    [
      "no Origin, Sec-Fetch-Site cross-site",
      { "sec-fetch-site": "cross-site", host: "studio.example" },
      true,
    ],
    ["no Origin, Sec-Fetch-Site same-site", { "sec-fetch-site": "same-site", host: "studio.example" }, true],
    ["no Origin, Sec-Fetch-Site Cross-Site (case)", { "sec-fetch-site": "Cross-Site" }, true],
    [
      "no Origin, Sec-Fetch-Site same-origin",
      { "sec-fetch-site": "same-origin", host: "studio.example" },
      false,
    ],
    ["no Origin, Sec-Fetch-Site none", { "sec-fetch-site": "none", host: "studio.example" }, false],
    ["neither header (curl)", { host: "studio.example", "user-agent": "curl/8.5.0" }, false],
    ["neither header nor Host", {}, false],
  ])("%s -> %s", (_label, headers, expected) => {
    expect(isCrossOrigin(new Headers(headers), allowed)).toBe(expected);
  });

  it("with no ALLOWED_ORIGINS, an origin allowed elsewhere is foreign", () => {
    const headers = new Headers({ origin: "https://partner.example", host: "studio.example" });
    expect(isCrossOrigin(headers, { siteOrigin: allowed.siteOrigin, allowedOrigins: [] })).toBe(true);
  });
});

describe("requestSite (a subscriber's consent.site)", () => {
  it.each<[string, HeaderSet, string]>([
    ["the site's origin", { origin: "https://studio.example" }, "same-origin"],
    [
      "the request's own origin",
      { origin: "http://app.internal:3000", host: "app.internal:3000" },
      "same-origin",
    ],
    ["an allowed origin", { origin: "https://partner.example" }, "same-origin"],
    ["Sec-Fetch-Site: same-origin, no Origin", { "sec-fetch-site": "same-origin" }, "same-origin"],
    ["another site's origin", { origin: "https://evil.example" }, "cross-site"],
    [
      "another site's origin, whatever Sec-Fetch-Site says",
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
      "cross-site",
    ],
    ["Origin: null (a sandboxed or privacy-sensitive context)", { origin: "null" }, "cross-site"],
    ["Sec-Fetch-Site: cross-site, no Origin", { "sec-fetch-site": "cross-site" }, "cross-site"],
    [
      "Sec-Fetch-Site: same-site, no Origin (another origin)",
      { "sec-fetch-site": "same-site" },
      "cross-site",
    ],
    ["Sec-Fetch-Site: none (typed by the user), no Origin", { "sec-fetch-site": "none" }, "unknown"],
    ["neither header (a script)", {}, "unknown"],
  ])("%s -> %s", (_label, headers, expected) => {
    expect(requestSite(new Headers(headers), allowed)).toBe(expected);
  });
});

describe("requestOrigin", () => {
  it.each<[string, HeaderSet, string | null]>([
    ["Host only", { host: "app.internal:3000" }, "http://app.internal:3000"],
    ["Host with the default port", { host: "app.internal:80" }, "http://app.internal"],
    [
      "Host and X-Forwarded-Proto",
      { host: "app.internal", "x-forwarded-proto": "https" },
      "https://app.internal",
    ],
    [
      "X-Forwarded-Host and -Proto over Host",
      { host: "127.0.0.1:3000", "x-forwarded-host": "www.studio.example", "x-forwarded-proto": "https" },
      "https://www.studio.example",
    ],
    [
      "first entries of listed proxy headers",
      { "x-forwarded-host": "a.example, b.example", "x-forwarded-proto": "https, http" },
      "https://a.example",
    ],
    [
      "X-Forwarded-Host alone defaults to http",
      { "x-forwarded-host": "a.example:8080" },
      "http://a.example:8080",
    ],
    ["upper-case host", { host: "App.Internal:3000" }, "http://app.internal:3000"],
    ["no host at all", {}, null],
    ["an unusable host", { host: "bad host" }, null],
  ])("%s -> %s", (_label, headers, expected) => {
    expect(requestOrigin(new Headers(headers))).toBe(expected);
  });
});
