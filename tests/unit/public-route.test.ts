import { describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/http/errors";
import { FORM_MEDIA_TYPE, publicRoute, type PublicRouteSettings } from "@/lib/http/public-route";
import type { RateLimiter } from "@/lib/ratelimit";

interface StubServices {
  config: { siteOrigin: string; allowedOrigins: string[]; trustedProxyHops: number };
  limiter: RateLimiter;
}

/** A limiter that allows `allowed` requests in all, counting every one it is asked about. */
function countingLimiter(allowed: number): RateLimiter & { asked: number } {
  const limiter = {
    driver: "memory" as const,
    asked: 0,
    consume: vi.fn(async () => {
      limiter.asked += 1;
      return {
        allowed: limiter.asked <= allowed,
        limit: allowed,
        remaining: Math.max(allowed - limiter.asked, 0),
        resetAt: Date.now() + 60_000,
      };
    }),
  };
  return limiter;
}

function stubServices(limiter: RateLimiter): StubServices {
  return {
    config: { siteOrigin: "https://studio.example", allowedOrigins: [], trustedProxyHops: 0 },
    limiter,
  };
}

function route(services: StubServices, overrides: Partial<PublicRouteSettings<StubServices>> = {}) {
  const handled = vi.fn();
  const POST = publicRoute<StubServices>(
    {
      services: () => services,
      sameOriginOnly: true,
      limiter: (s) => s.limiter,
      maxBodyBytes: 16,
      mediaType: "application/json",
      acceptsNativeForm: true,
      failureLocation: (error) => `/form?error=${error.code}`,
      ...overrides,
    },
    async ({ readText, nativeForm, answerInJson }) => {
      const body = await readText();
      handled(body, nativeForm);
      if (body === "json please") answerInJson();
      if (body === "boom") throw new ApiError("validation_failed", undefined, { fields: { email: "x" } });
      return { body: { ok: true }, location: "/done" };
    },
  );
  return { POST, handled };
}

function post(headers: Record<string, string>, body = "{}"): Request {
  return new Request("http://app.internal/api/test", {
    method: "POST",
    headers: { host: "app.internal", ...headers },
    body,
  });
}

const JSON_TYPE = { "content-type": "application/json" };

describe("publicRoute: each step answers before the next costs anything", () => {
  it.each<[string, Record<string, string>, string, number, string | null, number]>([
    [
      "another origin: 403 before the limiter counts",
      { ...JSON_TYPE, origin: "https://evil.example" },
      "{}",
      403,
      "cross_origin",
      0,
    ],
    [
      "a declared size past the cap: 413 after the limiter",
      { ...JSON_TYPE, "content-length": "17" },
      "{}",
      413,
      "payload_too_large",
      1,
    ],
    [
      "a declared size past the cap with the wrong media type: 413, the size is asked first",
      { "content-type": "text/plain", "content-length": "17" },
      "{}",
      413,
      "payload_too_large",
      1,
    ],
    [
      "a body that is not JSON's media type: 415",
      { "content-type": "text/plain" },
      "{}",
      415,
      "unsupported_media_type",
      1,
    ],
    ["a streamed body past the cap: 413", JSON_TYPE, "x".repeat(17), 413, "payload_too_large", 1],
    ["a good request: 200", JSON_TYPE, "{}", 200, null, 1],
  ])("%s", async (_name, headers, body, status, code, counted) => {
    const limiter = countingLimiter(5);
    const { POST } = route(stubServices(limiter));
    const response = await POST(post(headers, body));
    expect(response.status).toBe(status);
    expect(limiter.asked).toBe(counted);
    const answer = (await response.json()) as { ok: boolean; error?: string };
    expect(answer.error ?? null).toBe(code);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("over the limit: 429 with Retry-After, and the handler never runs", async () => {
    const { POST, handled } = route(stubServices(countingLimiter(0)));
    const response = await POST(post(JSON_TYPE));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(handled).not.toHaveBeenCalled();
  });

  it("sends the RateLimit-* headers with the answer and with a refusal after the limiter", async () => {
    const { POST } = route(stubServices(countingLimiter(5)));
    for (const body of ["{}", "boom"]) {
      const response = await POST(post(JSON_TYPE, body));
      expect(response.headers.get("ratelimit-limit")).toBe("5");
    }
  });

  it("without an origin rule or a limiter, neither is asked", async () => {
    const limiter = countingLimiter(5);
    const { POST } = route(stubServices(limiter), { sameOriginOnly: false, limiter: undefined });
    const response = await POST(post({ ...JSON_TYPE, origin: "https://evil.example" }));
    expect(response.status).toBe(200);
    expect(limiter.asked).toBe(0);
  });
});

describe("publicRoute: a browser posting a form itself", () => {
  const navigating = { accept: "text/html,application/xhtml+xml" };

  it("may send the form media type, and is sent on with a 303", async () => {
    const { POST, handled } = route(stubServices(countingLimiter(5)));
    const response = await POST(post({ ...navigating, "content-type": FORM_MEDIA_TYPE }, "a=1"));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/done");
    expect(handled).toHaveBeenCalledWith("a=1", true);
  });

  it("is sent back with the error code when refused", async () => {
    const { POST } = route(stubServices(countingLimiter(5)));
    const response = await POST(post({ ...navigating, "content-type": FORM_MEDIA_TYPE }, "boom"));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/form?error=validation_failed");
  });

  it("gets JSON once the handler asks for it, failures included", async () => {
    const { POST } = route(stubServices(countingLimiter(5)));
    const response = await POST(post({ ...navigating, "content-type": FORM_MEDIA_TYPE }, "json please"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("a script's form-encoded body is still refused: 415", async () => {
    const { POST } = route(stubServices(countingLimiter(5)));
    const response = await POST(post({ "content-type": FORM_MEDIA_TYPE }, "a=1"));
    expect(response.status).toBe(415);
  });

  it("a route with no failure page answers a browser's refusal in JSON", async () => {
    const { POST } = route(stubServices(countingLimiter(5)), { failureLocation: undefined });
    const response = await POST(post({ ...navigating, "content-type": "text/plain" }));
    expect(response.status).toBe(415);
  });
});

describe("publicRoute: services that cannot be built", () => {
  it("answers the contract's 500, logged", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const POST = publicRoute(
      {
        services: (): StubServices => {
          throw new Error("EMAIL_TO is malformed");
        },
        maxBodyBytes: 16,
      },
      async () => ({ body: { ok: true } }),
    );
    const response = await POST(post(JSON_TYPE));
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: string }).error).toBe("internal_error");
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });
});
