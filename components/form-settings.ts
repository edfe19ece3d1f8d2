"use client";

import { useCallback, useState } from "react";
import type { FormSettings } from "@/lib/site/form-settings";

/** One request per page view, shared by every form on it; a failed one is asked again next time. */
let pending: Promise<FormSettings> | null = null;

function fetchSettings(): Promise<FormSettings> {
  pending ??= fetch("/api/form-settings", { headers: { Accept: "application/json" } })
    .then(async (response) => {
      if (!response.ok) throw new Error(`form settings: HTTP ${response.status}`);
      return (await response.json()) as FormSettings;
    })
    .catch((error: unknown) => {
      pending = null;
      throw error;
    });
  return pending;
}

/**
 * The forms' run-time settings (`GET /api/form-settings`): `null` until a visitor starts on a form
 * (`load`, on focus or input), so a page view alone asks nothing. `load` resolves with the
 * settings, for a form sent before they had arrived; it rejects when they cannot be had.
 */
export function useFormSettings() {
  const [settings, setSettings] = useState<FormSettings | null>(null);
  const load = useCallback(async (): Promise<FormSettings> => {
    const loaded = await fetchSettings();
    setSettings(loaded);
    return loaded;
  }, []);
  return { settings, load };
}
