import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { SecurityStateStore } from './security-state-store.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A `@fastify/rate-limit` store over the {@link SecurityStateStore}, so limits are counted
 * where the settings are kept and hold across instances (the plugin's in-process store would
 * give each instance its own budget). Pass the returned class as the plugin's `store` option.
 */
export function sharedRateLimitStore(state: SecurityStateStore): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      readonly namespace = 'rate:',
    ) {}

    incr(key: string, callback: Callback, timeWindow: number): void {
      state.increment(this.namespace + key, timeWindow).then(
        (counter) => callback(null, { current: counter.count, ttl: counter.resetInMs }),
        (error: Error) => callback(error),
      );
    }

    read(key: string, callback: Callback, timeWindow: number): void {
      state.peek(this.namespace + key, timeWindow).then(
        (counter) => callback(null, { current: counter.count, ttl: counter.resetInMs }),
        (error: Error) => callback(error),
      );
    }

    // The plugin passes its merged route parameters, whose `routeInfo` is the route (as for Redis).
    child(routeOptions: unknown): FastifyRateLimitStore {
      const info = (routeOptions as { routeInfo?: { method?: string; url?: string } }).routeInfo;
      const route = `${info?.method ?? ''}${info?.url ?? ''}`;
      return new SharedRateLimitStore(undefined, `${this.namespace}${route}-`);
    }
  }
  return SharedRateLimitStore;
}
