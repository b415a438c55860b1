import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The .gitignore rules of one folder, matched against paths relative to that folder. */
interface IgnoreLayer {
  /** Folder of the rules, workspace-relative ('' for the root). */
  base: string;
  rules: Ignore;
}

function readRules(file: string): Ignore | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return ignore({ allowRelativePaths: true }).add(content);
}

/**
 * The .gitignore rules in force in one folder: its own file on top of its ancestors' files,
 * with git's precedence (a deeper file and a later line win; `!` re-includes). The root also
 * honours `.git/info/exclude`. Rules outside the workspace (parent folders, the user's global
 * excludes file) are not read, so results do not depend on where the workspace sits.
 */
export class IgnoreRules {
  readonly #layers: readonly IgnoreLayer[];

  private constructor(layers: readonly IgnoreLayer[]) {
    this.#layers = layers;
  }

  static forRoot(root: string): IgnoreRules {
    const layers: IgnoreLayer[] = [];
    const exclude = readRules(path.join(root, '.git', 'info', 'exclude'));
    if (exclude !== undefined) layers.push({ base: '', rules: exclude });
    const own = readRules(path.join(root, '.gitignore'));
    if (own !== undefined) layers.push({ base: '', rules: own });
    return new IgnoreRules(layers);
  }

  /** Rules for a sub-folder: these rules plus its own .gitignore when it has one. */
  descend(absoluteDirectory: string, relativeDirectory: string, hasGitignore: boolean): IgnoreRules {
    if (!hasGitignore) return this;
    const own = readRules(path.join(absoluteDirectory, '.gitignore'));
    return own === undefined
      ? this
      : new IgnoreRules([...this.#layers, { base: relativeDirectory, rules: own }]);
  }

  /** True when the workspace-relative path is ignored (`isDirectory` enables 'name/' rules). */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    for (let index = this.#layers.length - 1; index >= 0; index -= 1) {
      const layer = this.#layers[index]!;
      const local = layer.base === '' ? relativePath : relativePath.slice(layer.base.length + 1);
      const verdict = layer.rules.test(isDirectory ? `${local}/` : local);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}
