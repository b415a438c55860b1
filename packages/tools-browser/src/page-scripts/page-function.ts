/**
 * Turns page-side source text into a function Playwright can send to the page. Playwright sends
 * `fn.toString()`; building the function from text keeps transpilers from rewriting it (tsx and
 * esbuild's keepNames inject helpers such as `__name` that do not exist in the page).
 */
export function pageFunction<Arguments extends unknown[], Result>(
  source: string,
): (...args: Arguments) => Result {
  return new Function(`return (${source});`)() as (...args: Arguments) => Result;
}
