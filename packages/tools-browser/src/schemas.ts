import { Type } from '@assistant-kit/kernel/typebox';
import { StringEnum } from '@assistant-kit/tool-core';

/** Wait conditions of browser_open and browser_navigate. */
export const WAIT_UNTIL_VALUES = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'] as const;
/** One of {@link WAIT_UNTIL_VALUES}. */
export type WaitUntil = (typeof WAIT_UNTIL_VALUES)[number];

/** Actions of browser_interact, in SPEC order. */
export const INTERACTION_ACTIONS = [
  'click',
  'drag',
  'hover',
  'type',
  'press_key',
  'select',
  'set_checked',
  'scroll',
] as const;
/** One of {@link INTERACTION_ACTIONS}. */
export type InteractionAction = (typeof INTERACTION_ACTIONS)[number];

/** Element states browser_wait can wait for. */
export const WAIT_STATES = ['visible', 'hidden', 'attached', 'detached'] as const;
/** One of {@link WAIT_STATES}. */
export type WaitState = (typeof WAIT_STATES)[number];

const waitUntil = () =>
  Type.Optional(
    StringEnum(WAIT_UNTIL_VALUES, {
      description:
        'Done at load (default), domcontentloaded, networkidle0 (no request for 500 ms) or networkidle2 (at most 2 for 500 ms).',
    }),
  );
const timeoutSeconds = () =>
  Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'Seconds opening may take (default 30, at most 120).',
    }),
  );
const waitMs = (what: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 0,
      description: `Extra ms to wait ${what} (at most 60000).`,
    }),
  );
const coordinate = (description: string) => Type.Optional(Type.Number({ description }));

/** Parameters of browser_open (SPEC 4.4). */
export const BROWSER_OPEN_PARAMETERS = Type.Object({
  target: Type.String({
    minLength: 1,
    description:
      'What to open: a workspace file or folder (served by a loopback static server), an app manifest (package.json with a dev/start script, or assistant-app.json) whose runtime is started sandboxed, or a URL the host permits.',
  }),
  width: Type.Optional(
    Type.Integer({
      minimum: 320,
      maximum: 3840,
      description: 'Viewport width in CSS pixels (default 1280).',
    }),
  ),
  height: Type.Optional(
    Type.Integer({
      minimum: 240,
      maximum: 2160,
      description: 'Viewport height in CSS pixels (default 720).',
    }),
  ),
  wait_until: waitUntil(),
  timeout_seconds: timeoutSeconds(),
  wait_ms: waitMs('after the page loaded'),
});

/** Parameters of browser_navigate (SPEC 4.4). */
export const BROWSER_NAVIGATE_PARAMETERS = Type.Object({
  target: Type.String({
    minLength: 1,
    description: "A workspace file or folder, a URL of the session's own servers, or a URL the host permits.",
  }),
  wait_until: waitUntil(),
  timeout_seconds: timeoutSeconds(),
  wait_ms: waitMs('after the page loaded'),
});

/** Parameters of browser_snapshot: none (SPEC 4.4). */
export const BROWSER_SNAPSHOT_PARAMETERS = Type.Object({}, { additionalProperties: false });

/** Parameters of browser_interact (SPEC 4.4, 8). */
export const BROWSER_INTERACT_PARAMETERS = Type.Object(
  {
    action: StringEnum(INTERACTION_ACTIONS, {
      description: 'The interaction; other parameters name the actions they apply to.',
    }),
    selector: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Unique CSS selector of the element (as given by browser_snapshot); optional for press_key and scroll, and for click/hover at page pixels x/y.',
      }),
    ),
    target_selector: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'drag: unique CSS selector of the drop target; drag needs this or to_x/to_y.',
      }),
    ),
    button: Type.Optional(
      StringEnum(['left', 'middle', 'right'] as const, { description: 'Mouse button (default left).' }),
    ),
    click_count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description: 'click: 1 (default), 2 for double or 3 for triple click.',
      }),
    ),
    x: coordinate('With y: offset inside selector, or viewport pixels when no selector.'),
    y: coordinate('With x: offset inside selector, or viewport pixels when no selector.'),
    from_x: coordinate(
      'drag start x: offset inside selector, or viewport pixels when no selector; when omitted the drag starts at the centre of selector.',
    ),
    from_y: coordinate('drag start y (see from_x).'),
    to_x: coordinate(
      'drag end x: offset inside target_selector, or viewport pixels when no target_selector.',
    ),
    to_y: coordinate('drag end y (see to_x).'),
    text: Type.Optional(Type.String({ description: 'type: the text to type, as key strokes.' })),
    clear: Type.Optional(
      Type.Boolean({ description: 'type: clear the field first (default false: append).' }),
    ),
    press_enter: Type.Optional(Type.Boolean({ description: 'type: press Enter after the text.' })),
    delay_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'type: milliseconds between key strokes (default 0, at most 1000).',
      }),
    ),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'press_key: key name or chord such as Escape, Space, ArrowLeft, Control+A.',
      }),
    ),
    values: Type.Optional(
      Type.Array(Type.String(), {
        minItems: 1,
        description: 'select: option values or labels to select (several for a multiple select).',
      }),
    ),
    checked: Type.Optional(Type.Boolean({ description: 'set_checked: the wanted state (default true).' })),
    delta_x: coordinate('scroll: horizontal pixels to scroll by (positive scrolls right).'),
    delta_y: coordinate('scroll: vertical pixels to scroll by (positive scrolls down).'),
    edge: Type.Optional(
      StringEnum(['top', 'bottom', 'left', 'right'] as const, {
        description: 'scroll: scroll the page (or selector) all the way to this edge.',
      }),
    ),
    into_view: Type.Optional(Type.Boolean({ description: 'scroll: scroll selector into view.' })),
    wait_ms: waitMs('after the interaction'),
  },
  { additionalProperties: false },
);

/** Parameters of browser_wait (SPEC 4.4, 8). */
export const BROWSER_WAIT_PARAMETERS = Type.Object(
  {
    duration_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60000,
        description: 'Milliseconds to wait before checking conditions.',
      }),
    ),
    selector: Type.Optional(
      Type.String({ minLength: 1, description: 'CSS selector whose element must reach state.' }),
    ),
    state: Type.Optional(
      StringEnum(WAIT_STATES, { description: 'State the selector must reach (default visible).' }),
    ),
    text: Type.Optional(Type.String({ minLength: 1, description: 'Text the page must show.' })),
    url_contains: Type.Optional(
      Type.String({ minLength: 1, description: 'Substring the page URL must contain.' }),
    ),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 60000,
        description: 'How long the conditions may take (default 10000).',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Parameters of browser_resize (SPEC 4.4, 8). */
export const BROWSER_RESIZE_PARAMETERS = Type.Object(
  {
    width: Type.Integer({ minimum: 320, maximum: 3840, description: 'Viewport width in CSS pixels.' }),
    height: Type.Integer({ minimum: 240, maximum: 2160, description: 'Viewport height in CSS pixels.' }),
    wait_ms: waitMs('after resizing'),
  },
  { additionalProperties: false },
);

/** Parameters of browser_evaluate (SPEC 4.4, 8). */
export const BROWSER_EVALUATE_PARAMETERS = Type.Object({
  expression: Type.String({
    minLength: 1,
    description:
      'JavaScript run in the page (window/document; no controller objects such as page). A promise is awaited, a function expression called. May change page state.',
  }),
  timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 100,
      description:
        'Milliseconds the evaluation may take (default 5000; the configuration caps it, by default at 30000).',
    }),
  ),
});

/** Parameters of browser_screenshot (SPEC 4.4). */
export const BROWSER_SCREENSHOT_PARAMETERS = Type.Object({
  path: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'A .png path in the workspace, which becomes part of the deliverable; by default a hidden shots folder kept out of deliverables.',
    }),
  ),
  full_page: Type.Optional(
    Type.Boolean({ default: true, description: 'Capture the whole scrollable page (default true).' }),
  ),
});

/** Parameters of browser_errors (SPEC 4.4). */
export const BROWSER_ERRORS_PARAMETERS = Type.Object({
  clear: Type.Optional(Type.Boolean({ description: 'Reset the error ledger after reporting it.' })),
});

/** Parameters of browser_close (SPEC 4.4). */
export const BROWSER_CLOSE_PARAMETERS = Type.Object({
  reason: Type.Optional(
    Type.String({ description: 'Why the session ends; recorded in the diagnostic log.' }),
  ),
});
