/** Bytes in a mebibyte. */
export const MiB = 1024 * 1024;

/** V8's collector: the unit tests' processes start with `--expose-gc` (vitest.config.mts). */
const gc: () => void = (globalThis as { gc?: () => void }).gc ?? failWithoutGc();

function failWithoutGc(): never {
  throw new Error(
    "V8's gc is not exposed: these memory measures need node's --expose-gc (vitest.config.mts).",
  );
}

/**
 * The process's ArrayBuffer bytes once garbage is collected: what something still holds, measured
 * before and after it. V8 frees their memory on background threads after a collection, late on a
 * busy machine, so it collects a few times and takes the least.
 */
export async function liveArrayBufferBytes(): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
    least = Math.min(least, process.memoryUsage().arrayBuffers);
  }
  return least;
}
