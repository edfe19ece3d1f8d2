"use client";

import { useEffect } from "react";
import { rememberVisit } from "./visit-attribution";

/**
 * Notes where the visit came from on the page it lands on (referrer, `utm_*`), so a brief sent
 * from another page later in the visit still says so. Renders nothing.
 */
export function VisitTracker() {
  useEffect(() => {
    rememberVisit();
  }, []);
  return null;
}
