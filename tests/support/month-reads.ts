import type { ObjectStore, StoreCallOptions } from "@/lib/store";

/** `store`, with the month indexes of the briefs' list that are read recorded (`YYYY/MM`, in order). */
export function watchMonthReads(store: ObjectStore): { store: ObjectStore; months: string[] } {
  const months: string[] = [];
  const wrapped = Object.create(store, {
    get: {
      value: (path: string, options?: StoreCallOptions) => {
        const match = /^index\/briefs\/(\d{4}\/\d{2})\.json$/.exec(path);
        if (match) months.push(match[1]!);
        return store.get(path, options);
      },
    },
  }) as ObjectStore;
  return { store: wrapped, months };
}
