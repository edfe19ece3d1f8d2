/**
 * A seeded random generator for generated test inputs (mulberry32: small, fast, and the same
 * sequence for the same seed everywhere), so a failing case names its seed and replays.
 */
export function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const bytes = (length: number) => Buffer.from(Array.from({ length }, () => int(0, 255)));
  return { next, int, pick, bytes };
}

export type Random = ReturnType<typeof generator>;
