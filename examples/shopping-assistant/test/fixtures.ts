import type { Product } from '../src/catalogue/schema.js';

/** A hand-made product for planner tests: only what a test cares about needs saying. */
export function product(overrides: Partial<Product> & Pick<Product, 'id'>): Product {
  return {
    name: 'Model',
    brand: 'Brand',
    department: 'shoes',
    type: 'running shoes',
    audience: 'unisex',
    colour: 'black',
    price: 100,
    rating: 4,
    features: [],
    stock: { '40': 2, '41': 2, '42': 2 },
    sold: { '40': 10, '41': 20, '42': 30 },
    ...overrides,
  };
}
