import { enforceRateLimit, type RateLimiter } from "../ratelimit";
import { assertDeclaredSize, assertMediaType, mediaType, readText } from "./body";
import { clientAddress, rateLimitSubject } from "./client-address";
import { ApiError, errorResponse, json, toApiError } from "./errors";
import { seeOther, wantsHtml } from "./navigation";
import { isCrossOrigin } from "./origin";

/**
 * The public routes' shared steps, in the contract's order, each answering before the next costs
 * anything: origin (the contact form's rule) -> rate limit -> declared size -> media type. The
 * handler then reads the body under the same cap and does the route's own work; whatever it
 * throws leaves through `toApiError`, as the contract's JSON or, for a browser that posted a form
 * without JavaScript, as a 303 to a page that shows it.
 */

/** What the shared steps read of the services; `Services` (lib/services.ts) has all of it. */
export interface PublicRouteServices {
  config: { siteOrigin: string; allowedOrigins: readonly string[]; trustedProxyHops: number };
}

/** The form media type a browser sends when it posts a form itself. */
export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

export interface PublicRouteSettings<S extends PublicRouteServices> {
  /** The services, built once per process (`getServices`): a configuration error is a logged 500. */
  services: () => S;
  /** Throws when this server does not offer the route at all; asked before anything else. */
  assertOffered?: (services: S) => void;
  /** Refuse a post from another origin (the contact form's rule). */
  sameOriginOnly?: boolean;
  /** Counts requests per client address; absent where a signed token is the authority. */
  limiter?: (services: S) => RateLimiter;
  /** The body cap: the declared size is checked first, then the bytes as they arrive. */
  maxBodyBytes: number;
  /** The media type the body must have; absent when any body is taken (it says nothing). */
  mediaType?: string;
  /** A browser without JavaScript may post the route's form as `FORM_MEDIA_TYPE` instead. */
  acceptsNativeForm?: boolean;
  /** Where a browser without JavaScript is sent when the request fails; without it, JSON always. */
  failureLocation?: (error: ApiError) => string;
}

/** What the handler is given: the shared steps' results. */
export interface PublicRequest<S> {
  request: Request;
  services: S;
  /** The client's address as the trusted proxies report it; `null` when unknown. */
  address: string | null;
  /** The body is the browser's own form post (`FORM_MEDIA_TYPE`), not JSON. */
  nativeForm: boolean;
  /** The whole body as UTF-8 text, read under `maxBodyBytes`. */
  readText(): Promise<string>;
  /** Answer in JSON even to a browser's own form post, failures included. */
  answerInJson(): void;
}

/** The handler's outcome: the JSON body, and the page a browser without JavaScript goes to. */
export interface PublicAnswer {
  body: unknown;
  location?: string;
}

/** A `POST` handler that runs the shared steps with `settings`, then `handle`. */
export function publicRoute<S extends PublicRouteServices>(
  settings: PublicRouteSettings<S>,
  handle: (input: PublicRequest<S>) => Promise<PublicAnswer>,
): (request: Request) => Promise<Response> {
  return async function POST(request: Request): Promise<Response> {
    let navigating = wantsHtml(request);
    let rateLimitHeaders: Record<string, string> = {};
    try {
      const services = settings.services();
      settings.assertOffered?.(services);
      const { config } = services;

      if (settings.sameOriginOnly && isCrossOrigin(request.headers, config)) {
        throw new ApiError("cross_origin");
      }

      const address = clientAddress(request.headers, config.trustedProxyHops);
      if (settings.limiter) {
        rateLimitHeaders = await enforceRateLimit(settings.limiter(services), rateLimitSubject(address));
      }

      assertDeclaredSize(request, settings.maxBodyBytes);
      const nativeForm =
        navigating && settings.acceptsNativeForm === true && mediaType(request) === FORM_MEDIA_TYPE;
      if (settings.mediaType && !nativeForm) assertMediaType(request, settings.mediaType);

      const answer = await handle({
        request,
        services,
        address,
        nativeForm,
        readText: () => readText(request, settings.maxBodyBytes),
        answerInJson: () => void (navigating = false),
      });
      if (navigating && answer.location) return seeOther(answer.location, rateLimitHeaders);
      return json(answer.body, { headers: rateLimitHeaders });
    } catch (error) {
      if (navigating && settings.failureLocation) {
        return seeOther(settings.failureLocation(toApiError(error)), rateLimitHeaders);
      }
      return errorResponse(error, rateLimitHeaders);
    }
  };
}
