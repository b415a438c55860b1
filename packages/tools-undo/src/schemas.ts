import { Type } from '@assistant-kit/kernel/typebox';

/** Parameters of workspace_diff (SPEC 4.4); additional properties are not constrained. */
export const WORKSPACE_DIFF_PARAMETERS = Type.Object({
  since: Type.Optional(
    Type.String({
      description:
        "'last', 'working', or a commit; default 'last'. 'last' is the last checkpoint (what the current dispatch changed), 'working' the repository's HEAD, otherwise a dispatch id (dispatch-3), a checkpoint commit or a commit of the workspace repository.",
      default: 'last',
    }),
  ),
  path_glob: Type.Optional(
    Type.String({
      description:
        "Only files matching this glob (workspace-relative, e.g. 'src/**/*.ts'; a glob without '/' matches file names anywhere).",
    }),
  ),
  max_chars: Type.Optional(
    Type.Integer({
      description:
        'Upper bound on the characters of diff text returned (default 40000, at most 100000); a note says when it was cut.',
    }),
  ),
});

/** Parameters of undo_workspace_dispatches (SPEC 4.4, bounds of SPEC 8). */
export const UNDO_WORKSPACE_DISPATCHES_PARAMETERS = Type.Object({
  count: Type.Integer({
    minimum: 1,
    maximum: 20,
    description:
      '1 to 20; the exact number of dispatches to reverse; 1 unless the user asked for another count',
  }),
});
