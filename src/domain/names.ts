import { rememberedByText } from './remembered';
import { errorIssue, warningIssue, type Issue } from './issue';
import { isModuleId } from './triplet';

/** Resource names: a letter or digit, then letters, digits, `_` or `-`. */
export const RESOURCE_NAME_PATTERN = /^[a-zA-Z0-9][-\w]*$/;
/** Longest resource name the service accepts. */
export const RESOURCE_NAME_MAX_LENGTH = 60;
/** Module names use the same characters as resource names. */
export const MODULE_NAME_PATTERN = /^[a-zA-Z0-9][-\w]*$/;
/** Longest module name the service accepts. */
export const MODULE_NAME_MAX_LENGTH = 200;
/** Module names the machine server keeps for itself. */
export const RESERVED_MODULE_NAMES: readonly string[] = ['parent'];

/** How a valid name is written (resource, model and module names alike). */
export const NAME_CHARS_HINT = 'start with a letter or digit and use only letters, digits, "_" and "-"';

/** What a check of a valid name returns: one empty list for them all (a fleet checks thousands of names). */
const NO_ISSUES: readonly Issue[] = Object.freeze([]);

/** Checks one resource name; returns the problems (empty when valid). */
export function checkResourceName(name: string, path: string): readonly Issue[] {
  if (name === '') return [errorIssue('resource-name', path, 'resource name is empty', NAME_CHARS_HINT)];
  let issues: Issue[] | undefined;
  if (!RESOURCE_NAME_PATTERN.test(name)) {
    (issues ??= []).push(errorIssue('resource-name', path, `invalid resource name ${JSON.stringify(name)}`, NAME_CHARS_HINT));
  }
  if (name.length > RESOURCE_NAME_MAX_LENGTH) {
    (issues ??= []).push(
      errorIssue(
        'resource-name',
        path,
        `resource name ${JSON.stringify(name)} is ${name.length} characters long; at most ${RESOURCE_NAME_MAX_LENGTH} are allowed`,
        'choose a shorter name',
      ),
    );
  }
  return issues ?? NO_ISSUES;
}

/** Checks one module name; returns the problems (empty when valid). */
export function checkModuleName(name: string, path: string): readonly Issue[] {
  if (name === '') return [errorIssue('module-name', path, 'module name is empty', NAME_CHARS_HINT)];
  let issues: Issue[] | undefined;
  if (!MODULE_NAME_PATTERN.test(name)) {
    (issues ??= []).push(errorIssue('module-name', path, `invalid module name ${JSON.stringify(name)}`, NAME_CHARS_HINT));
  }
  if (name.length > MODULE_NAME_MAX_LENGTH) {
    (issues ??= []).push(
      errorIssue(
        'module-name',
        path,
        `module name is ${name.length} characters long; at most ${MODULE_NAME_MAX_LENGTH} are allowed`,
        'choose a shorter name',
      ),
    );
  }
  if (RESERVED_MODULE_NAMES.includes(name)) {
    (issues ??= []).push(errorIssue('module-name', path, `module name ${JSON.stringify(name)} is reserved`, 'choose another name'));
  }
  return issues ?? NO_ISSUES;
}

/** The conventional module name for a module id: `<namespace>_<module-name>`, e.g. `acme_sensors` (remembered: a fleet names a handful of module ids). */
export const conventionalModuleName: (moduleId: string) => string | undefined = rememberedByText((moduleId) =>
  // A module id has exactly one ":", between its namespace and its name.
  isModuleId(moduleId) ? moduleId.replace(':', '_') : undefined,
);

/**
 * The naming convention `<module-namespace>_<module-name>`: breaking it is allowed,
 * so the result is at most one warning.
 */
export function checkModuleNamingConvention(name: string, moduleId: string | undefined, path: string): Issue[] {
  if (moduleId === undefined) return [];
  const expected = conventionalModuleName(moduleId);
  if (expected === undefined || expected === name) return [];
  return [
    warningIssue(
      'module-naming-convention',
      path,
      `module name ${JSON.stringify(name)} does not follow the convention <namespace>_<module-name>`,
      `name it ${JSON.stringify(expected)}`,
    ),
  ];
}
