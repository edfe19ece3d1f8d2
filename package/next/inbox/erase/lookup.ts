/** What a look-up on /inbox/erase found: the counts for an address, or why there are none. */
export interface PersonLookup {
  /** The address as typed, to keep it in the field. */
  typed: string;
  problem: string | null;
  found: { email: string; briefs: number; spam: number; subscribers: number } | null;
}

export const NO_LOOKUP: PersonLookup = { typed: "", problem: null, found: null };
