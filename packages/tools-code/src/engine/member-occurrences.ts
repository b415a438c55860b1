import type { Node } from 'web-tree-sitter';
import type { FileAnalysis } from '../syntax/symbols.js';

/**
 * Whether an occurrence of a member's name, found by name in a syntax tree, can be that member
 * (`Context.JSON`): a member access (`c.JSON(…)`, `self.copy_with(…)`, `this.handle`), or the
 * member's own declaration in that container. On gin (Go, no language server here), the 95
 * "references" of `Context.JSON` were every `JSON` in the tree: the type `render.JSON`, its
 * receivers and composite literals, and the package variable `binding.JSON`.
 *
 * A syntax tree does not know types: a member access may still be another type's member of the
 * same name (the answer says it matched by name). What it can tell apart is kept out: a bare name,
 * another container's declaration, and, in Go, a member of an imported package (`binding.JSON`).
 */
export function canBeMemberOccurrence(
  node: Node,
  member: { name: string; container: string },
  analysis: FileAnalysis | undefined,
  line: number,
  grammar: string,
): boolean {
  const parent = node.parent;
  if (parent === null) return false;
  const declaredHere = () =>
    (analysis?.symbols ?? []).some(
      (symbol) =>
        symbol.name === member.name &&
        symbol.line === line &&
        symbol.container !== undefined &&
        sameContainer(symbol.container, member.container),
    );
  switch (grammar) {
    case 'go':
      if (parent.type === 'selector_expression' && parent.childForFieldName('field')?.id === node.id) {
        const operand = parent.childForFieldName('operand');
        return !(operand?.type === 'identifier' && goPackageNames(analysis).has(operand.text));
      }
      return declaredHere();
    case 'typescript':
    case 'tsx':
    case 'javascript':
      if (parent.type === 'member_expression' && parent.childForFieldName('property')?.id === node.id)
        return true;
      // `obj?.member` and `obj.#member` parse as member expressions too; anything else is a
      // declaration (a method, a field, an object literal's key) or a bare name.
      return declaredHere();
    case 'python':
      if (parent.type === 'attribute' && parent.childForFieldName('attribute')?.id === node.id) return true;
      return declaredHere();
    case 'rust':
      // `value.method()` and `Type::function()`.
      if (parent.type === 'field_expression' && parent.childForFieldName('field')?.id === node.id)
        return true;
      if (parent.type === 'scoped_identifier' && parent.childForFieldName('name')?.id === node.id)
        return true;
      return declaredHere();
    default:
      return true;
  }
}

/** `Outer.Inner` and `Inner` name the same container, as a qualified query and an analysis may. */
function sameContainer(declared: string, asked: string): boolean {
  return declared === asked || declared.endsWith(`.${asked}`) || asked.endsWith(`.${declared}`);
}

/** The names a Go file's imports bind (the last segment of each path; `v2`-style ones skipped). */
function goPackageNames(analysis: FileAnalysis | undefined): Set<string> {
  const names = new Set<string>();
  for (const imported of analysis?.imports ?? []) {
    const segments = imported.split('/');
    let last = segments[segments.length - 1] ?? '';
    if (/^v\d+$/.test(last) && segments.length > 1) last = segments[segments.length - 2]!;
    // gopkg.in/yaml.v3 is package yaml; go-playground/validator/v10 is validator.
    names.add(
      last
        .replace(/\.v\d+$/, '')
        .replace(/^go-/, '')
        .replace(/[-.]/g, '_'),
    );
  }
  return names;
}
