import { LIMITS } from './limits.js';

/** Where a JSON value nests too deep: the path to the first container past the limit. */
export interface DepthProblem {
  /** Keys and indexes from the root, e.g. `['params', 'arguments', 'context', 'a', ...]`. */
  path: (string | number)[];
  /** The limit that was passed. */
  maxDepth: number;
}

/**
 * Finds the first object or array nested deeper than `maxDepth` (the root counts as level 1), or
 * returns `null`. Iterative, so a 20,000-level value cannot overflow the stack the way a recursive
 * validator (or `JSON.stringify`) does; run it on a parsed body before anything walks it.
 *
 * @example
 * jsonDepthProblem({ a: { b: 1 } }, 1) // → { path: ['a'], maxDepth: 1 }
 */
export function jsonDepthProblem(value: unknown, maxDepth: number = LIMITS.jsonDepth): DepthProblem | null {
  const stack: { value: unknown; depth: number; path: (string | number)[] }[] = [
    { value, depth: 1, path: [] },
  ];
  while (stack.length > 0) {
    const item = stack.pop() as (typeof stack)[number];
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > maxDepth) return { path: item.path, maxDepth };
    const entries: [string | number, unknown][] = Array.isArray(item.value)
      ? item.value.map((v, i) => [i, v])
      : Object.entries(item.value);
    for (const [key, child] of entries) {
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child, depth: item.depth + 1, path: [...item.path, key] });
      }
    }
  }
  return null;
}

/**
 * The field a depth problem names, for an error message: the first `segments` keys of its path
 * (`params.arguments.context`, `[2].params.arguments.context` in a batch), then `…`.
 */
export function depthProblemField(problem: DepthProblem, segments = 3): string {
  const shown = problem.path.slice(0, segments + (typeof problem.path[0] === 'number' ? 1 : 0));
  const text = shown.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  return problem.path.length > shown.length ? `${text}…` : text || '(the body)';
}

/** The words for a depth problem: `<field> is nested deeper than 64 levels`. */
export function describeDepthProblem(problem: DepthProblem): string {
  return `${depthProblemField(problem)} is nested deeper than ${problem.maxDepth} levels`;
}
