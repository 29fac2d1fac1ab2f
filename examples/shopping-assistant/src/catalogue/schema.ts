import { z } from 'zod';

/** Where an item sits in the shop: shoes take EU sizes, apparel letter or waist sizes. */
export const DepartmentSchema = z.enum(['shoes', 'apparel']);
export type Department = z.infer<typeof DepartmentSchema>;

export const AudienceSchema = z.enum(['women', 'men', 'unisex']);
export type Audience = z.infer<typeof AudienceSchema>;

const countsBySize = z.record(z.string().min(1), z.number().int().min(0));

/** One colourway of one model: the unit the shop stocks, prices and sells by size. */
export const ProductSchema = z
  .object({
    id: z.string().regex(/^SKU-\d{4}$/),
    name: z.string().min(1),
    brand: z.string().min(1),
    department: DepartmentSchema,
    type: z.string().min(1),
    audience: AudienceSchema,
    colour: z.string().min(1),
    /** Price in euros. */
    price: z.number().positive(),
    rating: z.number().min(1).max(5),
    features: z.array(z.string()),
    /** Units on the shelf per size; 0 means sold out in that size. */
    stock: countsBySize,
    /** Units sold per size over the last year: what "the size most bought" is read from. */
    sold: countsBySize,
  })
  .refine((p) => Object.keys(p.stock).join() === Object.keys(p.sold).join(), {
    message: 'stock and sold must list the same sizes',
    path: ['sold'],
  });
export type Product = z.infer<typeof ProductSchema>;

export const CatalogueSchema = z.array(ProductSchema).min(1);
export type Catalogue = Product[];
