/**
 * SPEC 4.4 written out as data, independently of the implementation, so the catalogue is checked
 * row by row and parameter table by parameter table against the specification itself.
 */

export type Configuration = 'W' | 'U' | 'R';

export interface SpecRow {
  name: string;
  offeredIn: readonly Configuration[];
  effects: readonly string[];
  capabilities: readonly string[];
  execution?: 'sequential';
  origin?: 'browser';
}

const WUR: Configuration[] = ['W', 'U', 'R'];
const WU: Configuration[] = ['W', 'U'];
const FILE_CAPABILITIES = ['workspace.file', 'workspace.write', 'workspace.file-version'];

/** The table of SPEC 4.4, in the order W offers the tools; the undo tool comes last. */
export const SPEC_ROWS: readonly SpecRow[] = [
  {
    name: 'write_file',
    offeredIn: WU,
    effects: ['workspace_write'],
    capabilities: FILE_CAPABILITIES,
    execution: 'sequential',
  },
  {
    name: 'edit_file',
    offeredIn: WU,
    effects: ['workspace_write'],
    capabilities: FILE_CAPABILITIES,
    execution: 'sequential',
  },
  {
    name: 'replace_in_files',
    offeredIn: WU,
    effects: ['workspace_write'],
    capabilities: ['workspace.file', 'workspace.write'],
    execution: 'sequential',
  },
  { name: 'view_image', offeredIn: WUR, effects: ['read'], capabilities: [] },
  {
    name: 'browser_open',
    offeredIn: WUR,
    effects: ['network_read', 'process'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  {
    name: 'browser_navigate',
    offeredIn: WUR,
    effects: ['network_read', 'process'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  { name: 'browser_snapshot', offeredIn: WUR, effects: ['read'], capabilities: [], origin: 'browser' },
  {
    name: 'browser_interact',
    offeredIn: WUR,
    effects: ['read', 'external_mutation'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  {
    name: 'browser_wait',
    offeredIn: WUR,
    effects: ['read'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  {
    name: 'browser_resize',
    offeredIn: WUR,
    effects: ['read', 'external_mutation'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  {
    name: 'browser_evaluate',
    offeredIn: WUR,
    effects: ['read', 'external_mutation'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  {
    name: 'browser_screenshot',
    offeredIn: WUR,
    effects: ['read'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  { name: 'browser_errors', offeredIn: WUR, effects: ['read'], capabilities: [], origin: 'browser' },
  {
    name: 'browser_close',
    offeredIn: WUR,
    effects: ['read'],
    capabilities: [],
    execution: 'sequential',
    origin: 'browser',
  },
  { name: 'search_files', offeredIn: WUR, effects: ['read'], capabilities: ['workspace.file'] },
  { name: 'workspace_diff', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'file_outline', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'repo_map', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_workspace_symbols', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_document_symbols', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_find_definition', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_find_references', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_diagnostics', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_project_profile', offeredIn: WUR, effects: ['read'], capabilities: [] },
  { name: 'code_related_tests', offeredIn: WUR, effects: ['read'], capabilities: [] },
  {
    name: 'run_tests',
    offeredIn: WUR,
    effects: ['read', 'process'],
    capabilities: [],
    execution: 'sequential',
  },
  {
    name: 'read_file',
    offeredIn: WUR,
    effects: ['read'],
    capabilities: ['workspace.file', 'workspace.file-version'],
  },
  { name: 'list_files', offeredIn: WUR, effects: ['read'], capabilities: ['workspace.file'] },
  { name: 'run_command', offeredIn: WUR, effects: ['process'], capabilities: [], execution: 'sequential' },
  { name: 'wait_command', offeredIn: WUR, effects: ['read'], capabilities: [], execution: 'sequential' },
  {
    name: 'code_intelligence',
    offeredIn: WUR,
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
  },
  {
    name: 'undo_workspace_dispatches',
    offeredIn: ['U'],
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
  },
];

export const SPEC_COUNTS: Record<Configuration, number> = { W: 31, U: 32, R: 28 };

/** A parameter as the spec's tables state it. */
export interface SpecParameter {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  required?: boolean;
  /** Allowed values (for arrays: of each item). */
  enum?: readonly string[];
  itemType?: 'string' | 'object';
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  /** Configurations that offer the parameter, when not all of them. */
  only?: readonly Configuration[];
  /** Enum restricted in R. */
  enumInR?: readonly string[];
  /** The item object's own fields (run_command sources). */
  itemFields?: Record<string, SpecParameter>;
  itemAdditionalPropertiesForbidden?: boolean;
}

export interface SpecParameterTable {
  additionalPropertiesForbidden: boolean;
  parameters: Record<string, SpecParameter>;
}

const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'];
const str = (extra: Partial<SpecParameter> = {}): SpecParameter => ({ type: 'string', ...extra });
const int = (extra: Partial<SpecParameter> = {}): SpecParameter => ({ type: 'integer', ...extra });
const num = (extra: Partial<SpecParameter> = {}): SpecParameter => ({ type: 'number', ...extra });
const bool = (extra: Partial<SpecParameter> = {}): SpecParameter => ({ type: 'boolean', ...extra });
const strings = (extra: Partial<SpecParameter> = {}): SpecParameter => ({
  type: 'array',
  itemType: 'string',
  ...extra,
});
const open = (parameters: Record<string, SpecParameter>): SpecParameterTable => ({
  additionalPropertiesForbidden: false,
  parameters,
});
const closed = (parameters: Record<string, SpecParameter>): SpecParameterTable => ({
  additionalPropertiesForbidden: true,
  parameters,
});

const CODE_INTELLIGENCE_OPERATIONS = [
  'hover',
  'find_implementations',
  'call_hierarchy',
  'preview_rename',
  'list_actions',
  'preview_format',
  'apply_rename',
  'apply_action',
  'apply_format',
];

/** The parameter tables of SPEC 4.4 and the bounds of SPEC 8. */
export const SPEC_PARAMETERS: Record<string, SpecParameterTable> = {
  write_file: open({ path: str({ required: true }), content: str({ required: true }) }),
  edit_file: open({
    path: str({ required: true }),
    old_text: str({ required: true }),
    new_text: str({ required: true }),
    replace_all: bool({ default: false }),
  }),
  replace_in_files: open({
    find: str({ required: true }),
    replace: str({ required: true }),
    glob: str(),
    regex: bool(),
    dry_run: bool(),
    max_files: int(),
    encoding: str(),
  }),
  view_image: open({ reference: str({ required: true }) }),
  browser_open: open({
    target: str({ required: true }),
    width: int(),
    height: int(),
    wait_until: str({ enum: WAIT_UNTIL }),
    timeout_seconds: num(),
    wait_ms: int(),
  }),
  browser_navigate: open({
    target: str({ required: true }),
    wait_until: str({ enum: WAIT_UNTIL }),
    timeout_seconds: num(),
    wait_ms: int(),
  }),
  browser_snapshot: closed({}),
  browser_interact: closed({
    action: str({
      required: true,
      enum: ['click', 'drag', 'hover', 'type', 'press_key', 'select', 'set_checked', 'scroll'],
    }),
    selector: str(),
    target_selector: str(),
    button: str({ enum: ['left', 'middle', 'right'] }),
    click_count: int({ minimum: 1, maximum: 3 }),
    x: num(),
    y: num(),
    from_x: num(),
    from_y: num(),
    to_x: num(),
    to_y: num(),
    text: str(),
    clear: bool(),
    press_enter: bool(),
    delay_ms: int(),
    key: str(),
    values: strings({ minItems: 1 }),
    checked: bool(),
    delta_x: num(),
    delta_y: num(),
    edge: str({ enum: ['top', 'bottom', 'left', 'right'] }),
    into_view: bool(),
    wait_ms: int(),
  }),
  browser_wait: closed({
    duration_ms: int({ minimum: 0, maximum: 60000 }),
    selector: str(),
    state: str({ enum: ['visible', 'hidden', 'attached', 'detached'] }),
    text: str(),
    url_contains: str(),
    timeout_ms: int({ minimum: 100, maximum: 60000 }),
  }),
  browser_resize: closed({
    width: int({ required: true, minimum: 320, maximum: 3840 }),
    height: int({ required: true, minimum: 240, maximum: 2160 }),
    wait_ms: int(),
  }),
  browser_evaluate: open({
    expression: str({ required: true }),
    timeout_ms: int({ minimum: 100 }),
  }),
  browser_screenshot: open({ path: str(), full_page: bool({ default: true }) }),
  browser_errors: open({ clear: bool() }),
  browser_close: open({ reason: str() }),
  search_files: closed({
    pattern: str(),
    glob: str(),
    max_results: int(),
    context_lines: int(),
  }),
  workspace_diff: open({ since: str({ default: 'last' }), path_glob: str(), max_chars: int() }),
  file_outline: open({ path: str({ required: true }) }),
  repo_map: open({
    scope: str(),
    include: strings({
      enum: [
        'project',
        'entrypoints',
        'modules',
        'routes',
        'assets',
        'tests',
        'ownership',
        'instructions',
        'next_files',
      ],
    }),
    max_files: int(),
    max_symbols: int(),
    max_results: int(),
  }),
  code_workspace_symbols: open({
    query: str(),
    kind: str(),
    glob: str(),
    max_results: int(),
    max_files: int(),
  }),
  code_document_symbols: open({ path: str({ required: true }), max_results: int() }),
  code_find_definition: open({
    symbol: str({ required: true }),
    path: str(),
    line: int(),
    character: int(),
    max_results: int(),
  }),
  code_find_references: open({
    symbol: str({ required: true }),
    path: str(),
    line: int(),
    character: int(),
    glob: str(),
    max_results: int(),
  }),
  code_diagnostics: open({ glob: str(), max_files: int() }),
  code_project_profile: open({}),
  code_related_tests: open({ path: str(), paths: strings(), symbol: str(), max_results: int() }),
  run_tests: open({
    command_id: str(),
    path: str(),
    paths: strings(),
    symbol: str(),
    timeout_seconds: int(),
  }),
  read_file: open({
    path: str({ required: true }),
    offset_line: int(),
    max_lines: int(),
    encoding: str(),
  }),
  list_files: open({ path: str() }),
  run_command: open({
    command: str(),
    argv: strings({ minItems: 1 }),
    shell: str({ enum: ['bash', 'powershell'], default: 'bash' }),
    execution_context: str({ enum: ['sandbox', 'host'], default: 'sandbox' }),
    background: bool({ only: ['W', 'U'] }),
    cwd: str({ default: '.' }),
    timeout_seconds: int(),
    sources: {
      type: 'array',
      itemType: 'object',
      maxItems: 50,
      itemAdditionalPropertiesForbidden: true,
      itemFields: {
        url: str({ required: true }),
        title: str(),
        coverage: str({ required: true, enum: ['complete', 'partial', 'unknown'] }),
        evidence_path: str(),
      },
    },
  }),
  wait_command: open({
    handle: str({ required: true }),
    timeout_seconds: int({ maximum: 60, default: 30 }),
  }),
  code_intelligence: open({
    operation: str({
      required: true,
      enum: CODE_INTELLIGENCE_OPERATIONS,
      enumInR: CODE_INTELLIGENCE_OPERATIONS.slice(0, 6),
    }),
    path: str({ required: true }),
    symbol: str(),
    line: int(),
    character: int(),
    end_line: int(),
    end_character: int(),
    direction: str({ enum: ['incoming', 'outgoing', 'both'] }),
    max_results: int(),
    new_name: str(),
    only: strings(),
    action_id: str(),
    edit_token: str(),
    tab_size: int(),
    insert_spaces: bool(),
  }),
  undo_workspace_dispatches: open({ count: int({ required: true, minimum: 1, maximum: 20 }) }),
};
