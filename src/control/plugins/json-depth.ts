/** Bodies nest at most this deep: deeper documents are refused before anything parses or stores them. */
export const MAX_JSON_DEPTH = 32;

/**
 * The path to the first value nested deeper than `maxDepth` (objects and arrays count one level
 * each), or null. Iterative, so a hostile 100,000-deep body cannot overflow the stack here.
 */
export function tooDeepPath(value: unknown, maxDepth = MAX_JSON_DEPTH): (string | number)[] | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) return path;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: [...path, k] });
  }
  return null;
}
