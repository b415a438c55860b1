import { MAX_JSON_KEY_DEPTH, MAX_JSON_KEYS } from './strict-json-keys.js';
import type { FileAnalysis } from './symbols.js';
import type { VisitOutcome } from './tree-walk.js';

/**
 * How deep a walk is in a document's mappings, for the extractors that list keys two mappings
 * deep and stop at a cap of symbols, as `strictJsonKeys` does (JSON from a tree, YAML).
 */
export class KeyDepth {
  #depth = 0;

  constructor(private readonly analysis: FileAnalysis) {}

  /** True while keys one mapping deeper would still be listed (depth and cap). */
  get roomForAnotherLevel(): boolean {
    return this.#depth < MAX_JSON_KEY_DEPTH && this.analysis.symbols.length < MAX_JSON_KEYS;
  }

  /** Enters a mapping: `false` (its keys are not listed, nor anything below) or the way out of it. */
  enterMapping(): VisitOutcome {
    if (!this.roomForAnotherLevel) return false;
    this.#depth++;
    return () => {
      this.#depth--;
    };
  }
}
