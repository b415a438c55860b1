import { isToolError, quoteArgument } from '@assistant-kit/tool-core';
import type { Locator, Page } from 'playwright-core';
import { raceWithSignal, sleep } from './cancellation.js';
import { resolveUniqueElement } from './element-resolution.js';
import { browserError, describePlaywrightError } from './errors.js';
import { MAXIMUM_WAIT_MS } from './options.js';
import { pageFunction } from './page-scripts/page-function.js';
import type { InteractionAction } from './schemas.js';

/** Arguments of browser_interact (validated against its schema). */
export interface InteractionArguments {
  action: InteractionAction;
  selector?: string;
  target_selector?: string;
  button?: 'left' | 'middle' | 'right';
  click_count?: number;
  x?: number;
  y?: number;
  from_x?: number;
  from_y?: number;
  to_x?: number;
  to_y?: number;
  text?: string;
  clear?: boolean;
  press_enter?: boolean;
  delay_ms?: number;
  key?: string;
  values?: string[];
  checked?: boolean;
  delta_x?: number;
  delta_y?: number;
  edge?: 'top' | 'bottom' | 'left' | 'right';
  into_view?: boolean;
  wait_ms?: number;
}

type Parameter = Exclude<keyof InteractionArguments, 'action'>;

// Which parameters each action takes; anything else is refused so a mistaken call is noticed.
const ACCEPTED: Record<InteractionAction, readonly Parameter[]> = {
  click: ['selector', 'button', 'click_count', 'x', 'y', 'wait_ms'],
  drag: ['selector', 'target_selector', 'from_x', 'from_y', 'to_x', 'to_y', 'wait_ms'],
  hover: ['selector', 'x', 'y', 'wait_ms'],
  type: ['selector', 'text', 'clear', 'press_enter', 'delay_ms', 'wait_ms'],
  press_key: ['selector', 'key', 'wait_ms'],
  select: ['selector', 'values', 'wait_ms'],
  set_checked: ['selector', 'checked', 'wait_ms'],
  scroll: ['selector', 'delta_x', 'delta_y', 'edge', 'into_view', 'wait_ms'],
};

const MAXIMUM_KEY_DELAY_MS = 1_000;
// Source text, not a function: transpilers must not inject helpers into code that runs in the page.
const readFieldValue = pageFunction<
  [Element],
  string | null
>(`(node) => (node instanceof HTMLInputElement && node.type === 'password') ? null
  : (node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) ? node.value : null`);

function argumentProblem(message: string): never {
  throw browserError('INTERACTION_ARGUMENTS_INVALID', message);
}

function requirePair(
  args: InteractionArguments,
  first: 'x' | 'from_x' | 'to_x',
  second: 'y' | 'from_y' | 'to_y',
): boolean {
  const hasFirst = args[first] !== undefined;
  const hasSecond = args[second] !== undefined;
  if (hasFirst !== hasSecond) argumentProblem(`${first} and ${second} go together: give both or neither.`);
  return hasFirst;
}

/** Checks the SPEC's per-action rules; throws INTERACTION_ARGUMENTS_INVALID naming the problem. */
export function checkInteractionArguments(args: InteractionArguments): void {
  const accepted = ACCEPTED[args.action];
  const extraneous = (Object.keys(args) as (keyof InteractionArguments)[]).filter(
    (key) => key !== 'action' && args[key] !== undefined && !accepted.includes(key as Parameter),
  );
  if (extraneous.length > 0) {
    argumentProblem(
      `${args.action} does not take ${extraneous.join(', ')}; it takes ${accepted.join(', ')}.`,
    );
  }
  switch (args.action) {
    case 'click':
    case 'hover':
      if (!requirePair(args, 'x', 'y') && args.selector === undefined) {
        argumentProblem(`${args.action} needs selector, or x and y in viewport pixels.`);
      }
      return;
    case 'drag': {
      const fromPoint = requirePair(args, 'from_x', 'from_y');
      const toPoint = requirePair(args, 'to_x', 'to_y');
      if (args.selector === undefined && !fromPoint)
        argumentProblem('drag needs selector or from_x/from_y for its start.');
      if (args.target_selector === undefined && !toPoint)
        argumentProblem('drag needs target_selector or to_x/to_y for its end.');
      return;
    }
    case 'type':
      if (args.selector === undefined) argumentProblem('type needs selector (the field to type into).');
      if (args.text === undefined) argumentProblem('type needs text.');
      return;
    case 'press_key':
      if (args.key === undefined) argumentProblem('press_key needs key, e.g. Enter, Escape, Control+A.');
      return;
    case 'select':
      if (args.selector === undefined) argumentProblem('select needs selector (the <select> element).');
      if (args.values === undefined)
        argumentProblem('select needs values (at least one option value or label).');
      return;
    case 'set_checked':
      if (args.selector === undefined) argumentProblem('set_checked needs selector (the checkbox or radio).');
      return;
    case 'scroll':
      if (args.into_view === true && args.selector === undefined)
        argumentProblem('into_view needs selector.');
      if (
        args.into_view !== true &&
        args.edge === undefined &&
        args.delta_x === undefined &&
        args.delta_y === undefined
      ) {
        argumentProblem('scroll needs delta_x/delta_y, edge, or into_view with selector.');
      }
      return;
  }
}

/** A point inside an element: its centre, or an offset from its top-left corner. */
async function pointIn(
  locator: Locator,
  offsetX: number | undefined,
  offsetY: number | undefined,
  timeout: number,
) {
  await locator.scrollIntoViewIfNeeded({ timeout });
  const box = await locator.boundingBox({ timeout });
  if (box === null)
    throw browserError('INTERACTION_FAILED', 'The element has no box on the page (it is not rendered).');
  return { x: box.x + (offsetX ?? box.width / 2), y: box.y + (offsetY ?? box.height / 2) };
}

export interface InteractionOutcome {
  /** One sentence on what was done. */
  summary: string;
  details: Record<string, unknown>;
}

async function scroll(page: Page, args: InteractionArguments, timeout: number): Promise<InteractionOutcome> {
  const element = args.selector === undefined ? undefined : await resolveUniqueElement(page, args.selector);
  if (args.into_view === true && element !== undefined) {
    await element.scrollIntoViewIfNeeded({ timeout });
  }
  const scrollSource = `(element, request) => {
    const target = element || document.scrollingElement || document.documentElement;
    if (request.edge === 'top') target.scrollTop = 0;
    if (request.edge === 'bottom') target.scrollTop = target.scrollHeight;
    if (request.edge === 'left') target.scrollLeft = 0;
    if (request.edge === 'right') target.scrollLeft = target.scrollWidth;
    if (request.deltaX || request.deltaY) target.scrollBy(request.deltaX || 0, request.deltaY || 0);
    return { x: Math.round(target.scrollLeft), y: Math.round(target.scrollTop),
      width: target.scrollWidth, height: target.scrollHeight };
  }`;
  const request = { edge: args.edge ?? null, deltaX: args.delta_x ?? 0, deltaY: args.delta_y ?? 0 };
  const position = (
    element === undefined
      ? await page.evaluate(`(${scrollSource})(null, ${JSON.stringify(request)})`)
      : await element.evaluate(pageFunction<[Element, typeof request], unknown>(scrollSource), request)
  ) as { x: number; y: number; width: number; height: number };
  return {
    summary: `Scrolled ${args.selector ?? 'the page'}; it is now at (${position.x}, ${position.y}) of ${position.width}x${position.height}.`,
    details: { scroll: position },
  };
}

async function perform(page: Page, args: InteractionArguments, timeout: number): Promise<InteractionOutcome> {
  switch (args.action) {
    case 'click': {
      const options = { button: args.button ?? 'left', clickCount: args.click_count ?? 1 } as const;
      if (args.selector === undefined) {
        await page.mouse.click(args.x!, args.y!, options);
        return { summary: `Clicked at viewport (${args.x}, ${args.y}).`, details: {} };
      }
      const element = await resolveUniqueElement(page, args.selector);
      await element.click({
        ...options,
        timeout,
        ...(args.x === undefined ? {} : { position: { x: args.x, y: args.y! } }),
      });
      return {
        summary: `Clicked ${args.selector}${options.clickCount > 1 ? ` ${options.clickCount} times` : ''}.`,
        details: {},
      };
    }
    case 'hover': {
      if (args.selector === undefined) {
        await page.mouse.move(args.x!, args.y!);
        return { summary: `Moved the mouse to viewport (${args.x}, ${args.y}).`, details: {} };
      }
      const element = await resolveUniqueElement(page, args.selector);
      await element.hover({
        timeout,
        ...(args.x === undefined ? {} : { position: { x: args.x, y: args.y! } }),
      });
      return { summary: `Hovered ${args.selector}.`, details: {} };
    }
    case 'drag': {
      const source =
        args.selector === undefined ? undefined : await resolveUniqueElement(page, args.selector);
      const target =
        args.target_selector === undefined
          ? undefined
          : await resolveUniqueElement(page, args.target_selector, 'target_selector');
      const start =
        source === undefined
          ? { x: args.from_x!, y: args.from_y! }
          : await pointIn(source, args.from_x, args.from_y, timeout);
      await page.mouse.move(start.x, start.y);
      await page.mouse.down();
      // The end point is measured after the press, in case pressing scrolled or moved things.
      const end =
        target === undefined
          ? { x: args.to_x!, y: args.to_y! }
          : await pointIn(target, args.to_x, args.to_y, timeout);
      await page.mouse.move(start.x + (end.x - start.x) / 2, start.y + (end.y - start.y) / 2, { steps: 5 });
      await page.mouse.move(end.x, end.y, { steps: 5 });
      await page.mouse.up();
      return {
        summary: `Dragged from ${args.selector ?? `(${start.x}, ${start.y})`} to ${args.target_selector ?? `(${end.x}, ${end.y})`}.`,
        details: { from: start, to: end },
      };
    }
    case 'type': {
      const element = await resolveUniqueElement(page, args.selector!);
      if (args.clear === true) await element.fill('', { timeout });
      else await element.focus({ timeout });
      const delay = Math.min(args.delay_ms ?? 0, MAXIMUM_KEY_DELAY_MS);
      await element.pressSequentially(args.text!, {
        delay,
        timeout: Math.max(timeout, args.text!.length * (delay + 50)),
      });
      if (args.press_enter === true) await element.press('Enter', { timeout });
      const value = (await element.evaluate(readFieldValue).catch(() => null)) as string | null;
      return {
        summary: `Typed ${args.text!.length} characters into ${args.selector}${args.press_enter ? ' and pressed Enter' : ''}.${value === null ? '' : ` Its value is now ${JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)}.`}`,
        details: value === null ? {} : { value },
      };
    }
    case 'press_key': {
      try {
        if (args.selector === undefined) await page.keyboard.press(args.key!);
        else await (await resolveUniqueElement(page, args.selector)).press(args.key!, { timeout });
      } catch (error) {
        if (/Unknown key/i.test(describePlaywrightError(error))) {
          throw browserError(
            'KEY_INVALID',
            `"${quoteArgument(args.key)}" is not a key name. Use names such as Enter, Escape, Tab, ArrowLeft, Backspace, a, or chords such as Control+A, Shift+Tab.`,
            { cause: error },
          );
        }
        throw error;
      }
      return {
        summary: `Pressed ${args.key}${args.selector === undefined ? '' : ` in ${args.selector}`}.`,
        details: {},
      };
    }
    case 'select': {
      const element = await resolveUniqueElement(page, args.selector!);
      const selected = await element.selectOption(args.values!, { timeout });
      return {
        summary: `Selected ${selected.map((value) => JSON.stringify(value)).join(', ')} in ${args.selector}.`,
        details: { selected },
      };
    }
    case 'set_checked': {
      const checked = args.checked ?? true;
      const element = await resolveUniqueElement(page, args.selector!);
      await element.setChecked(checked, { timeout });
      return { summary: `${checked ? 'Checked' : 'Unchecked'} ${args.selector}.`, details: { checked } };
    }
    case 'scroll':
      return scroll(page, args, timeout);
  }
}

/**
 * Performs one interaction after checking its arguments. Playwright waits for the element to be
 * visible, stable, enabled and not covered, up to `timeout`; its refusal becomes INTERACTION_FAILED.
 */
export async function interact(
  page: Page,
  args: InteractionArguments,
  timeout: number,
  signal: AbortSignal,
): Promise<InteractionOutcome> {
  checkInteractionArguments(args);
  let outcome: InteractionOutcome;
  try {
    outcome = await raceWithSignal(perform(page, args, timeout), signal, `The ${args.action} interaction`);
  } catch (error) {
    if (isToolError(error)) throw error;
    throw browserError(
      'INTERACTION_FAILED',
      `${quoteArgument(args.action)} failed: ${describePlaywrightError(error)}`,
      {
        cause: error,
        details: {
          action: quoteArgument(args.action),
          ...(args.selector === undefined ? {} : { selector: quoteArgument(args.selector) }),
        },
      },
    );
  }
  if (args.wait_ms !== undefined) await sleep(Math.min(args.wait_ms, MAXIMUM_WAIT_MS), signal);
  return outcome;
}
