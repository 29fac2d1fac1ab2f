/** The global a Capacitor native runtime installs before any page script runs. */
interface CapacitorGlobal {
  Capacitor?: { isNativePlatform?: () => boolean };
}

/**
 * True inside the Android / iOS shell. Reads the global the native bridge injects, so a plain browser
 * can ask without loading Capacitor at all.
 */
export function isNativeShell(win: unknown = globalThis): boolean {
  const capacitor = (win as CapacitorGlobal | undefined)?.Capacitor;
  return typeof capacitor?.isNativePlatform === 'function' && capacitor.isNativePlatform() === true;
}
