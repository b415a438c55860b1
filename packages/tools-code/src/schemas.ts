import { Type } from '@assistant-kit/kernel/typebox';
import { StringEnum } from '@assistant-kit/tool-core';

/** Sections repo_map can include (SPEC 4.4). */
export const REPO_MAP_SECTIONS = [
  'project',
  'entrypoints',
  'modules',
  'routes',
  'assets',
  'tests',
  'ownership',
  'instructions',
  'next_files',
] as const;

export type RepoMapSection = (typeof REPO_MAP_SECTIONS)[number];

/** Operations of code_intelligence in configurations W and U. */
export const CODE_INTELLIGENCE_OPERATIONS = [
  'hover',
  'find_implementations',
  'call_hierarchy',
  'preview_rename',
  'list_actions',
  'preview_format',
  'apply_rename',
  'apply_action',
  'apply_format',
] as const;

/** Operations of code_intelligence in configuration R (no apply_*). */
export const CODE_INTELLIGENCE_READ_ONLY_OPERATIONS = CODE_INTELLIGENCE_OPERATIONS.slice(
  0,
  6,
) as unknown as readonly [
  'hover',
  'find_implementations',
  'call_hierarchy',
  'preview_rename',
  'list_actions',
  'preview_format',
];

export type CodeIntelligenceOperation = (typeof CODE_INTELLIGENCE_OPERATIONS)[number];

const { Optional } = Type;
const maxResults = (what: string) => Optional(Type.Integer({ description: `Most ${what} to return.` }));

/** Parameters of file_outline. */
export const FileOutlineParameters = Type.Object({
  path: Type.String({ description: 'workspace-relative' }),
});

/** Parameters of repo_map. */
export const RepoMapParameters = Type.Object({
  scope: Optional(
    Type.String({ description: 'Workspace-relative folder to map; omitted means the whole workspace.' }),
  ),
  include: Optional(
    Type.Array(StringEnum(REPO_MAP_SECTIONS), {
      description: 'Sections to include; omitted means all of them.',
    }),
  ),
  max_files: Optional(Type.Integer({ description: 'Most files to list per section (default 50).' })),
  max_symbols: Optional(
    Type.Integer({ description: 'Most symbols to list in the modules section (default 150).' }),
  ),
  max_results: Optional(
    Type.Integer({
      description:
        'Most entries of list sections such as manifests, routes, tests and next_files (default 25).',
    }),
  ),
});

/** Parameters of code_workspace_symbols. */
export const CodeWorkspaceSymbolsParameters = Type.Object({
  query: Optional(
    Type.String({
      description: 'Text the symbol name contains (case-insensitive); omitted lists all symbols.',
    }),
  ),
  kind: Optional(
    Type.String({
      description:
        'Only symbols of this kind: function, class, method, interface, type, variable, constant, id, selector, heading…',
    }),
  ),
  glob: Optional(
    Type.String({ description: 'Only files matching this glob (for example src/**/*.ts or *.css).' }),
  ),
  max_results: maxResults('symbols (default 100)'),
  max_files: Optional(Type.Integer({ description: 'Most files to search (default 20000).' })),
});

/** Parameters of code_document_symbols. */
export const CodeDocumentSymbolsParameters = Type.Object({
  path: Type.String({ description: 'workspace-relative' }),
  max_results: maxResults('symbols (default 500)'),
});

const position = {
  path: Optional(
    Type.String({ description: 'Workspace-relative file where the symbol appears (narrows the search).' }),
  ),
  line: Optional(Type.Integer({ description: '1-based', minimum: 1 })),
  character: Optional(Type.Integer({ description: '1-based', minimum: 1 })),
};

/** Parameters of code_find_definition. */
export const CodeFindDefinitionParameters = Type.Object({
  symbol: Type.String({ description: 'Name of the symbol (Class.method for a member).' }),
  ...position,
  max_results: maxResults('definitions (default 20)'),
});

/** Parameters of code_find_references. */
export const CodeFindReferencesParameters = Type.Object({
  symbol: Type.String({ description: 'Name of the symbol (Class.method for a member).' }),
  ...position,
  glob: Optional(Type.String({ description: 'Only references in files matching this glob.' })),
  max_results: maxResults('references (default 100)'),
});

/** Parameters of code_diagnostics. */
export const CodeDiagnosticsParameters = Type.Object({
  glob: Optional(Type.String({ description: 'Files to check; omitted means every code file.' })),
  max_files: Optional(
    Type.Integer({ description: 'Most files to check (default 50); the rest are listed as unresolved.' }),
  ),
});

/** Parameters of code_project_profile (none). */
export const CodeProjectProfileParameters = Type.Object({});

/** Parameters of code_related_tests. */
export const CodeRelatedTestsParameters = Type.Object({
  path: Optional(Type.String({ description: 'A source file whose tests are wanted.' })),
  paths: Optional(Type.Array(Type.String(), { description: 'Several source files whose tests are wanted.' })),
  symbol: Optional(Type.String({ description: 'A symbol whose tests are wanted.' })),
  max_results: maxResults('tests (default 20)'),
});

/** Parameters of run_tests. */
export const RunTestsParameters = Type.Object({
  command_id: Optional(Type.String({ description: 'an id returned by code_project_profile' })),
  path: Optional(Type.String({ description: 'Run the tests related to this file.' })),
  paths: Optional(Type.Array(Type.String(), { description: 'Run the tests related to these files.' })),
  symbol: Optional(Type.String({ description: 'Run the tests related to this symbol.' })),
  timeout_seconds: Optional(
    Type.Integer({ description: 'Time limit of the run in seconds (default 300, at most 3600).' }),
  ),
  // A deliberate extension of SPEC 4.4 (issue 13), listed as such in the catalogue's spec test.
  test_name: Optional(
    Type.String({
      description:
        "Run only the tests whose name matches this, through the runner's own filter (vitest/jest -t, mocha --grep, ava --match, node --test-name-pattern, pytest/unittest -k, go -run, cargo's name filter).",
    }),
  ),
});

function codeIntelligenceParameters<Operations extends readonly string[]>(
  operations: Operations,
  readOnly: boolean,
) {
  const applyNote = readOnly ? '' : ' The apply operations require the edit_token of the matching preview.';
  return Type.Object({
    operation: StringEnum(operations, { description: `The operation to run.${applyNote}` }),
    path: Type.String({ description: 'Workspace-relative file the operation works on.' }),
    symbol: Optional(
      Type.String({ description: 'Symbol to locate in path when line/character are not given.' }),
    ),
    line: Optional(Type.Integer({ description: '1-based', minimum: 1 })),
    character: Optional(Type.Integer({ description: '1-based', minimum: 1 })),
    end_line: Optional(
      Type.Integer({
        description: '1-based; last line of the range of list_actions or preview_format',
        minimum: 1,
      }),
    ),
    end_character: Optional(Type.Integer({ description: '1-based', minimum: 1 })),
    direction: Optional(
      StringEnum(['incoming', 'outgoing', 'both'] as const, {
        description: 'call_hierarchy direction; default both',
      }),
    ),
    max_results: maxResults('results (default 50)'),
    new_name: Optional(Type.String({ description: 'preview_rename: the new name' })),
    only: Optional(
      Type.Array(Type.String(), {
        description: 'list_actions: only these action kinds (quickfix, refactor, source.organizeImports…)',
      }),
    ),
    action_id: Optional(
      Type.String({
        description: readOnly
          ? 'not used in this configuration'
          : 'apply_action: an action_id from list_actions',
      }),
    ),
    edit_token: Optional(
      Type.String({
        description: readOnly
          ? 'not used in this configuration'
          : 'apply_*: the edit_token of the matching preview',
      }),
    ),
    // Negative positions and tab sizes are refused by the schema (issue 12), not passed to a server.
    tab_size: Optional(
      Type.Integer({ description: 'preview_format: spaces per tab (default 2)', minimum: 1 }),
    ),
    insert_spaces: Optional(
      Type.Boolean({ description: 'preview_format: indent with spaces (default true)' }),
    ),
  });
}

/** Parameters of code_intelligence in configurations W and U. */
export const CodeIntelligenceParameters = codeIntelligenceParameters(CODE_INTELLIGENCE_OPERATIONS, false);

/** Parameters of code_intelligence in configuration R: the first six operations only. */
export const CodeIntelligenceParametersReadOnly = codeIntelligenceParameters(
  CODE_INTELLIGENCE_READ_ONLY_OPERATIONS,
  true,
);
