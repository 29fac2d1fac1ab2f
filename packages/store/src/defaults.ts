/** How long an ended inquiry is kept unless a store is told otherwise: seven days, in ms. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
