import type { Product } from '../catalogue/schema.js';
import { stockIn } from './candidates.js';
import type { Facts, Slot } from './facts.js';

/** One product the assistant recommends, with the reasons a customer can check. */
export interface Recommendation {
  id: string;
  title: string;
  colour: string;
  price: number;
  size?: string;
  /** Units on the shelf in the size (when a size is known). */
  inStock?: number;
  reasons: string[];
}

const euros = (n: number) => `€${n.toFixed(2)}`;

/** Why a product fits: each fact it meets, and what was relaxed to find it. */
export function toRecommendation(product: Product, facts: Facts, relaxed: Slot[]): Recommendation {
  const size = facts.size?.value;
  const colour = facts.colour?.value;
  const budget = facts.budget?.value;
  const reasons: string[] = [];
  if (typeof size === 'string') reasons.push(`size ${size} in stock (${stockIn(product, size)} left)`);
  if (typeof colour === 'string' && product.colour === colour) reasons.push(`in ${colour}`);
  if (typeof budget === 'number' && product.price <= budget)
    reasons.push(`${euros(product.price)}, within €${budget}`);
  if (relaxed.includes('budget') && typeof budget === 'number') {
    reasons.push(`over your €${budget} budget: nothing fitted it`);
  }
  if (relaxed.includes('colour') && typeof colour === 'string') reasons.push(`not in ${colour}: none was`);
  reasons.push(`rated ${product.rating}/5`);
  return {
    id: product.id,
    title: `${product.brand} ${product.name} ${product.type} (${product.audience})`,
    colour: product.colour,
    price: product.price,
    ...(typeof size === 'string' ? { size, inStock: stockIn(product, size) } : {}),
    reasons,
  };
}
