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
  // Case-sensitive like git and ripgrep on Linux.
  return ignore({ allowRelativePaths: true, ignorecase: false }).add(content);
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

/**
 * Answers "is this path ignored?" for arbitrary workspace paths, loading the .gitignore files
 * along the way once each. Used to apply .gitignore to ripgrep's results, because ripgrep lets
 * a `--glob` override .gitignore while this family always honours it.
 */
export class IgnoreOracle {
  readonly #root: string;
  readonly #rulesByDirectory = new Map<string, IgnoreRules>();
  readonly #skippedNames: ReadonlySet<string>;
  readonly #directoryVerdicts = new Map<string, boolean>();

  constructor(root: string, skippedNames: ReadonlySet<string>) {
    this.#root = root;
    this.#skippedNames = skippedNames;
    this.#rulesByDirectory.set('', IgnoreRules.forRoot(root));
  }

  #rulesFor(relativeDirectory: string): IgnoreRules {
    const cached = this.#rulesByDirectory.get(relativeDirectory);
    if (cached !== undefined) return cached;
    const slash = relativeDirectory.lastIndexOf('/');
    const parent = slash === -1 ? '' : relativeDirectory.slice(0, slash);
    const absolute = path.join(this.#root, relativeDirectory);
    const rules = this.#rulesFor(parent).descend(absolute, relativeDirectory, true);
    this.#rulesByDirectory.set(relativeDirectory, rules);
    return rules;
  }

  /** True when the folder, or any folder above it, is ignored or always skipped. */
  ignoresDirectory(relativePath: string): boolean {
    const known = this.#directoryVerdicts.get(relativePath);
    if (known !== undefined) return known;
    const slash = relativePath.lastIndexOf('/');
    const parent = slash === -1 ? '' : relativePath.slice(0, slash);
    const ignored =
      (parent !== '' && this.ignoresDirectory(parent)) ||
      this.#skippedNames.has(relativePath.slice(slash + 1)) ||
      this.#rulesFor(parent).ignores(relativePath, true);
    this.#directoryVerdicts.set(relativePath, ignored);
    return ignored;
  }

  /** True when the file, or any folder above it, is ignored or always skipped. */
  ignoresFile(relativePath: string): boolean {
    const segments = relativePath.split('/');
    let parent = '';
    for (let index = 0; index < segments.length - 1; index += 1) {
      const directory = parent === '' ? segments[index]! : `${parent}/${segments[index]}`;
      if (this.#skippedNames.has(segments[index]!)) return true;
      if (this.#rulesFor(parent).ignores(directory, true)) return true;
      parent = directory;
    }
    return this.#rulesFor(parent).ignores(relativePath, false);
  }
}
