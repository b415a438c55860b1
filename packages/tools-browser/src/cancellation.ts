import { browserError } from './errors.js';

/** Rejects with CANCELLED as soon as `signal` aborts, otherwise settles like `promise`. */
export function raceWithSignal<Value>(
  promise: Promise<Value>,
  signal: AbortSignal,
  what: string,
): Promise<Value> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(browserError('CANCELLED', `${what} was cancelled.`));
  }
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(browserError('CANCELLED', `${what} was cancelled.`));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `milliseconds`, ending early with CANCELLED when `signal` aborts. */
export function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (milliseconds <= 0)
    return signal.aborted
      ? Promise.reject(browserError('CANCELLED', 'The wait was cancelled.'))
      : Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return raceWithSignal(
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, milliseconds);
    }),
    signal,
    'The wait',
  ).finally(() => clearTimeout(timer));
}
