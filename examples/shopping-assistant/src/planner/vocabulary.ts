import type { Audience, Department } from '../catalogue/schema.js';

/**
 * Words customers use, mapped to the catalogue's own names. Longer phrases are matched first, so
 * "trail running shoes" wins over "running shoes" and "shoes".
 */
export const TYPE_WORDS: Record<string, string[]> = {
  'trail running shoes': ['trail running shoes', 'trail running shoe', 'trail shoes', 'trail runners'],
  'running shoes': ['running shoes', 'running shoe', 'running trainers', 'runners', 'jogging shoes'],
  sneakers: ['sneakers', 'sneaker', 'trainers', 'kicks'],
  'hiking boots': ['hiking boots', 'hiking boot', 'walking boots', 'trekking boots'],
  'chelsea boots': ['chelsea boots', 'chelsea boot', 'ankle boots'],
  loafers: ['loafers', 'loafer', 'penny loafers'],
  sandals: ['sandals', 'sandal', 'slides', 'flip flops'],
  't-shirt': ['t-shirts', 't-shirt', 'tshirt', 'tee shirt', 'tees', 'tee'],
  hoodie: ['hoodies', 'hoodie', 'hooded sweatshirt', 'sweatshirt'],
  sweater: ['sweaters', 'sweater', 'jumper', 'pullover', 'knitwear', 'cardigan'],
  'rain jacket': ['rain jacket', 'raincoat', 'rain coat', 'waterproof jacket', 'shell jacket', 'rain mac'],
  'down jacket': ['down jacket', 'puffer jacket', 'puffer', 'parka', 'winter jacket', 'winter coat'],
  jeans: ['jeans', 'denim'],
  chinos: ['chinos', 'chino', 'khakis'],
  dress: ['dresses', 'dress'],
  'running shorts': ['running shorts', 'shorts'],
  leggings: ['leggings', 'tights', 'running tights', 'yoga pants'],
};

/** Words that name a department but not a type ("some shoes"). */
export const DEPARTMENT_WORDS: Record<Department, string[]> = {
  shoes: ['shoes', 'shoe', 'footwear', 'boots', 'boot'],
  apparel: ['clothes', 'clothing', 'outfit', 'apparel', 'jacket', 'coat', 'top', 'trousers', 'pants'],
};

export const AUDIENCE_WORDS: Record<Audience, string[]> = {
  women: ['women', "women's", 'womens', 'woman', 'ladies', 'for her', 'my wife', 'my girlfriend', 'female'],
  men: ['men', "men's", 'mens', 'man', 'for him', 'my husband', 'my boyfriend', 'male'],
  unisex: ['unisex'],
};

/** Colour words, mapped to the catalogue's colour names. */
export const COLOUR_WORDS: Record<string, string[]> = {
  black: ['black'],
  white: ['white', 'off-white', 'cream'],
  grey: ['grey', 'gray', 'charcoal'],
  navy: ['navy', 'dark blue', 'navy blue'],
  blue: ['blue', 'light blue', 'denim blue'],
  red: ['red', 'scarlet'],
  burgundy: ['burgundy', 'maroon', 'wine', 'bordeaux'],
  pink: ['pink', 'rose'],
  green: ['green', 'forest green'],
  olive: ['olive', 'khaki green'],
  beige: ['beige', 'sand', 'tan', 'camel', 'stone'],
  brown: ['brown', 'chocolate', 'cognac'],
  yellow: ['yellow', 'mustard'],
  orange: ['orange'],
};

/** Words that say "I don't mind" about colour. */
export const ANY_COLOUR_WORDS = ['any colour', 'any color', 'any', "don't mind", 'no preference', 'whatever'];
