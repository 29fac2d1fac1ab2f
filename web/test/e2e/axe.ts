import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page and returns its serious and critical violations. The engine is evaluated
 * over the DevTools protocol, which the page's Content-Security-Policy does not govern, so the page is
 * checked exactly as served (no CSP bypass). A frame works too (the inquiry card in its host's frame).
 */
export async function seriousViolations(page: Pick<Page, 'evaluate'>): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const { violations } = await axe.run();
    return (
      violations as { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[]
    )
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((n) => n.target.join(' ')),
      }));
  });
}
