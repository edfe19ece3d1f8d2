import { z } from "zod";
import { optional } from "./values";
import { VARIABLES, type VariableName } from "./variables";

/**
 * Every variable the service reads (`lib/config/variables.ts`), each as an optional string: read as
 * raw strings first, so that each variable's own parser names it in its message.
 */
const rawEnvSchema = z.object(
  Object.fromEntries(VARIABLES.map((variable) => [variable.name, optional])) as Record<
    VariableName,
    typeof optional
  >,
);

export type RawEnv = z.infer<typeof rawEnvSchema>;

/**
 * What every section's parser works on: the raw variables, and the problems and warnings found so
 * far. The sections run in a fixed order and append to both lists, so the start reports every
 * problem at once, in the same order each time.
 */
export interface ConfigReader {
  raw: RawEnv;
  problems: string[];
  warnings: string[];
  /** `value` through `schema`; `fallback` when it is not set, or (with its problem noted) when it is refused. */
  read: <T>(value: string | undefined, schema: z.ZodType<T, string>, fallback: T) => T;
}

export function configReader(env: Record<string, string | undefined>): ConfigReader {
  const raw = rawEnvSchema.parse(env);
  const problems: string[] = [];
  const warnings: string[] = [];
  return {
    raw,
    problems,
    warnings,
    read(value, schema, fallback) {
      if (value === undefined) return fallback;
      const result = schema.safeParse(value);
      if (result.success) return result.data;
      problems.push(...result.error.issues.map((issue) => issue.message));
      return fallback;
    },
  };
}
