import type { Audience, Department } from '../catalogue/schema.js';

/** The facts the assistant needs before it searches, in the order it asks for them. */
export const SLOTS = ['type', 'size', 'colour', 'budget'] as const;
export type Slot = (typeof SLOTS)[number];

/**
 * A slot's value: the type name, the size label, a colour (`null`: any colour) or a budget in euros
 * (`null`: no limit).
 */
export type SlotValue = string | number | null;

/** Where a fact came from; the transcript says so for every one. */
export type FactSource = 'request' | 'customer' | 'assumed' | 'decision-agent';

export interface Fact {
  value: SlotValue;
  source: FactSource;
  /** Why, when the customer did not say it themselves ("you'd rather not say"). */
  note?: string;
}

export type Facts = Partial<Record<Slot, Fact>>;

/** What the customer's own words already tell: some slots, and softer hints. */
export interface ShoppingRequest {
  text: string;
  facts: Facts;
  department?: Department;
  audience?: Audience;
  /** Catalogue features the customer mentioned ("waterproof"): they rank, never exclude. */
  features: string[];
}

/** Facts with later ones winning. */
export function mergeFacts(base: Facts, update: Facts): Facts {
  return { ...base, ...update };
}
