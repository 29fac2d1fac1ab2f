#!/usr/bin/env node
/** Regenerates `data/catalogue.json` from the seed (run once; the output is committed). */
import { CATALOGUE_SEED, generateCatalogue } from './catalogue/generate.js';
import { CATALOGUE_PATH, writeCatalogue } from './catalogue/load.js';

const catalogue = generateCatalogue(CATALOGUE_SEED);
await writeCatalogue(catalogue);
process.stderr.write(`wrote ${catalogue.length} products to ${CATALOGUE_PATH}\n`);
