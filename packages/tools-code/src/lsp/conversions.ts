import { SYMBOL_KIND_NAMES, type SymbolKindName } from '../syntax/symbols.js';

/** LSP SymbolKind numbers 1–26 are the first 26 kinds in order (0 is not a kind; read as a file). */
const LSP_SYMBOL_KINDS: readonly SymbolKindName[] = ['file', ...SYMBOL_KIND_NAMES.slice(0, 26)];

/** Name of an LSP SymbolKind number. */
export function symbolKindName(kind: number): SymbolKindName {
  return LSP_SYMBOL_KINDS[kind] ?? 'variable';
}

/** Plain text of an LSP hover's contents (MarkupContent, MarkedString or an array of them). */
export function hoverText(contents: unknown): string {
  if (typeof contents === 'string') return contents;
  if (Array.isArray(contents))
    return contents
      .map(hoverText)
      .filter((part) => part !== '')
      .join('\n\n');
  if (contents !== null && typeof contents === 'object') {
    const value = (contents as { value?: unknown }).value;
    const language = (contents as { language?: unknown }).language;
    if (typeof value === 'string')
      return typeof language === 'string' ? `\`\`\`${language}\n${value}\n\`\`\`` : value;
  }
  return '';
}

const SEVERITIES = ['', 'error', 'warning', 'information', 'hint'] as const;

/** Name of an LSP DiagnosticSeverity number (errors when absent, as the protocol suggests). */
export function severityName(severity: number | undefined): 'error' | 'warning' | 'information' | 'hint' {
  return (SEVERITIES[severity ?? 1] || 'error') as 'error' | 'warning' | 'information' | 'hint';
}
