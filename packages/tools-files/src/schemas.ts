import { Type } from '@assistant-kit/kernel/typebox';

const workspacePath = (description = 'workspace path, relative or absolute') => Type.String({ description });

const encodingDescription = 'default: byte-order mark, else strict UTF-8; or name one, e.g. windows-1252';

/** Parameters of write_file (SPEC 4.4). */
export const WriteFileParameters = Type.Object({
  path: workspacePath(),
  content: Type.String({ description: 'complete file content' }),
});

/** Parameters of edit_file (SPEC 4.4). */
export const EditFileParameters = Type.Object({
  path: workspacePath(),
  old_text: Type.String({
    description: 'exact text to replace; must match exactly one place unless replace_all is true',
  }),
  new_text: Type.String({ description: 'replacement text' }),
  replace_all: Type.Optional(
    Type.Boolean({ description: 'replace every occurrence of old_text; default false', default: false }),
  ),
});

/** Parameters of replace_in_files (SPEC 4.4). */
export const ReplaceInFilesParameters = Type.Object({
  find: Type.String({ description: 'text to find (literal unless regex is true)' }),
  replace: Type.String({
    description: 'replacement text; with regex, $1, $<name> and $& refer to the match',
  }),
  glob: Type.Optional(
    Type.String({
      description:
        "selects files, e.g. '**/*.ts' or 'src/**'; a glob without '/' matches file names at any depth",
    }),
  ),
  regex: Type.Optional(Type.Boolean({ description: 'treat find as a regular expression; default false' })),
  dry_run: Type.Optional(
    Type.Boolean({ description: 'list the changes without writing them; default true' }),
  ),
  max_files: Type.Optional(
    Type.Integer({ description: 'refuse to change more than this many files; default 100' }),
  ),
  encoding: Type.Optional(Type.String({ description: encodingDescription })),
});

/** Parameters of view_image (SPEC 4.4). */
export const ViewImageParameters = Type.Object({
  reference: Type.String({
    description: 'exact workspace resource reference (a workspace path to the image)',
  }),
});

/** Parameters of search_files (SPEC 4.4); additional properties are forbidden. */
export const SearchFilesParameters = Type.Object(
  {
    pattern: Type.Optional(
      Type.String({ description: 'regular expression; required unless glob is used for a name listing' }),
    ),
    glob: Type.Optional(
      Type.String({
        description:
          "selects files, e.g. '*.ts' or 'src/**/*.md'; a glob without '/' matches file names at any depth",
      }),
    ),
    max_results: Type.Optional(
      Type.Integer({ description: 'most matching lines (or file names) to return; default 100' }),
    ),
    context_lines: Type.Optional(
      Type.Integer({ description: 'lines of context shown before and after each match; default 0' }),
    ),
  },
  { additionalProperties: false },
);

/** Parameters of read_file (SPEC 4.4). */
export const ReadFileParameters = Type.Object({
  path: workspacePath(),
  offset_line: Type.Optional(Type.Integer({ description: 'first line to return (1-based); default 1' })),
  max_lines: Type.Optional(Type.Integer({ description: 'most lines to return; default 2000' })),
  encoding: Type.Optional(Type.String({ description: encodingDescription })),
});

/** Parameters of list_files (SPEC 4.4). */
export const ListFilesParameters = Type.Object({
  path: Type.Optional(Type.String({ description: 'subdirectory; omitted means the workspace root' })),
});
