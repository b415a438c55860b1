import { isTestCode, PathVerdicts } from '../project/test-files.js';

/**
 * Code checked in from elsewhere: yarn's own releases and plugins, vendored and third-party
 * folders, minified bundles. Their many top-level names say nothing about this project's structure
 * (babel's bundled yarn plugin ranked fourth among its files to read next).
 */
const VENDORED =
  /(^|\/)(\.yarn\/(releases|plugins|sdks|unplugged)|vendor|vendored|third[-_]party|bower_components)\/|\.min\.[cm]?js$|(^|\/)\.pnp\.[cm]?js$/;

// Asked for every file on every map (and in the modules section's sort): kept per path.
const applicationVerdicts = new PathVerdicts((relative) => !isTestCode(relative) && !VENDORED.test(relative));

/**
 * True for the project's own code: neither tests and what serves them (see isTestCode) nor code
 * vendored from elsewhere. The map ranks, lists first and takes entry points and routes from
 * these files only.
 */
export function isApplicationCode(relative: string): boolean {
  return applicationVerdicts.get(relative);
}
