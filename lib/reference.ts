import { randomInt } from "node:crypto";

/**
 * Brief references: 16 symbols from a 30-symbol alphabet (78 random bits), shown in groups of
 * four, e.g. `K7QM-3XD9-PTWA-84HC`. Upper case only, and none of 0, 1, O, I, L or U, so a
 * reference read aloud or copied by hand cannot be mistaken for another.
 */
export const REFERENCE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUPS = 4;
const GROUP_LENGTH = 4;

export const REFERENCE_PATTERN = new RegExp(
  `^[${REFERENCE_ALPHABET}]{${GROUP_LENGTH}}(?:-[${REFERENCE_ALPHABET}]{${GROUP_LENGTH}}){${GROUPS - 1}}$`,
);

export function newReference(): string {
  const groups: string[] = [];
  for (let g = 0; g < GROUPS; g++) {
    let group = "";
    for (let i = 0; i < GROUP_LENGTH; i++) group += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
    groups.push(group);
  }
  return groups.join("-");
}

/** A reference as a person typed it (any case, spaces or missing dashes) in canonical form, or null. */
export function parseReference(input: string): string | null {
  const compact = input.toUpperCase().replace(/[\s-]/g, "");
  if (compact.length !== GROUPS * GROUP_LENGTH) return null;
  const canonical = compact.match(new RegExp(`.{${GROUP_LENGTH}}`, "g"))?.join("-") ?? "";
  return REFERENCE_PATTERN.test(canonical) ? canonical : null;
}
