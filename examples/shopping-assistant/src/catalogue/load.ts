import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Catalogue, CatalogueSchema } from './schema.js';

/** `data/catalogue.json` beside the package (the same path from `src/` and `dist/`). */
export const CATALOGUE_PATH = fileURLToPath(new URL('../../data/catalogue.json', import.meta.url));

/**
 * Reads and checks a catalogue file.
 * @throws Error naming the file and the first bad field.
 */
export async function loadCatalogue(path: string = CATALOGUE_PATH): Promise<Catalogue> {
  const parsed = CatalogueSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid catalogue'}`);
  }
  return parsed.data;
}

/**
 * Writes a catalogue one field per line with compact values, the layout Biome keeps (the package's
 * `catalogue` script formats it after), so a regenerated file diffs cleanly against the committed one.
 */
export async function writeCatalogue(catalogue: Catalogue, path: string = CATALOGUE_PATH): Promise<void> {
  const products = catalogue.map((product) => {
    const fields = Object.entries(product).map(
      ([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`,
    );
    return `  {\n${fields.join(',\n')}\n  }`;
  });
  await writeFile(path, `[\n${products.join(',\n')}\n]\n`);
}
