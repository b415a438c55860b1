import { inspect } from 'node:util';

/**
 * Makes an object that holds keys or secrets print only its label: `JSON.stringify` and
 * `util.inspect` otherwise walk own properties, and a key could end up in a log line.
 */
export function redactObject(target: object, label: string): void {
  Object.defineProperty(target, 'toJSON', {
    value: () => ({ type: label }),
    enumerable: false,
  });
  Object.defineProperty(target, inspect.custom, {
    value: () => `${label} { [redacted] }`,
    enumerable: false,
  });
}
