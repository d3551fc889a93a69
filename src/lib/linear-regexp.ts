import type { Options } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/**
 * Ajv's regular-expression engine for patterns that users write (`pattern`,
 * `patternProperties`): RE2's linear-time matching (re2js, pure JavaScript), so no pattern can
 * backtrack for seconds. A pattern RE2 cannot run (backreferences, lookaround) does not compile,
 * and the schema is refused with that reason.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (err) {
      throw new Error(`the pattern ${JSON.stringify(pattern.slice(0, 100))} is not supported (patterns run on a linear-time engine: no backreferences or lookaround): ${(err as Error).message}`);
    }
    // Ajv keys its compiled patterns by toString(): each pattern must have its own.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);
