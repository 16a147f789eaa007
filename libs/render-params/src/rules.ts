import type { ParameterProblem } from '@app/errors';
import type { Operation } from './parameters.js';
import { failureParameterProblems } from './failure-parameters.js';
import { pdfParameterProblems } from './pdf-parameters.js';

type Values = Record<string, unknown>;

/** A rule across parameters: returns the problem, if any, for values that are each valid alone. */
type CrossRule = (values: Values, operation: Operation) => ParameterProblem | undefined;

const given = (values: Values, name: string) => values[name] !== undefined;
const isTrue = (values: Values, name: string) => values[name] === true;

/** clip_x and clip_y of 0 are their defaults: alone they ask for no clip. */
const asksForClip = (v: Values) =>
  ['clip_x', 'clip_y'].some((n) => given(v, n) && v[n] !== 0) || given(v, 'clip_width') || given(v, 'clip_height');

const CROSS_RULES: readonly CrossRule[] = [
  (v) =>
    asksForClip(v) && !(given(v, 'clip_width') && given(v, 'clip_height'))
      ? { parameter: given(v, 'clip_width') ? 'clip_height' : 'clip_width', message: 'a clip needs both clip_width and clip_height (clip_x and clip_y default to 0)' }
      : undefined,
  (v) =>
    isTrue(v, 'full_page') && given(v, 'clip_width')
      ? { parameter: 'full_page', message: 'full_page cannot be combined with clip_*' }
      : undefined,
  (v) =>
    isTrue(v, 'full_page_scroll') && given(v, 'clip_width')
      ? { parameter: 'full_page_scroll', message: 'full_page_scroll cannot be combined with clip_*' }
      : undefined,
  (v) => {
    const other = isTrue(v, 'full_page') ? 'full_page' : isTrue(v, 'full_page_scroll') ? 'full_page_scroll' : asksForClip(v) ? 'clip_*' : undefined;
    return given(v, 'selector') && other
      ? { parameter: 'selector', message: `selector captures one element: it cannot be combined with ${other}` }
      : undefined;
  },
  (v) =>
    given(v, 'full_page_max_height') && !isTrue(v, 'full_page') && !isTrue(v, 'full_page_scroll')
      ? { parameter: 'full_page_max_height', message: 'full_page_max_height needs full_page=true or full_page_scroll=true' }
      : undefined,
  (v) =>
    given(v, 'scripts') && v.js_enabled === false
      ? { parameter: 'scripts', message: 'scripts cannot run with js_enabled=false' }
      : undefined,
  (v) =>
    given(v, 'geolocation_latitude') !== given(v, 'geolocation_longitude')
      ? {
          parameter: given(v, 'geolocation_latitude') ? 'geolocation_longitude' : 'geolocation_latitude',
          message: 'geolocation needs both geolocation_latitude and geolocation_longitude',
        }
      : undefined,
  (v) =>
    given(v, 'geolocation_accuracy') && !given(v, 'geolocation_latitude')
      ? { parameter: 'geolocation_accuracy', message: 'geolocation_accuracy needs geolocation_latitude and geolocation_longitude' }
      : undefined,
  (v, op) =>
    op === 'screenshot' && isTrue(v, 'omit_background') && !['png', 'webp'].includes(String(v.format ?? 'jpeg'))
      ? { parameter: 'omit_background', message: 'omit_background works only with format png or webp' }
      : undefined,
  (v) =>
    ['full_page_scroll_by_amount', 'full_page_scroll_by_duration'].some((n) => given(v, n)) && !isTrue(v, 'full_page_scroll')
      ? {
          parameter: given(v, 'full_page_scroll_by_amount') ? 'full_page_scroll_by_amount' : 'full_page_scroll_by_duration',
          message: 'full_page_scroll_by_amount and full_page_scroll_by_duration need full_page_scroll=true',
        }
      : undefined,
  (v) =>
    given(v, 'proxy') && given(v, 'ip_location')
      ? { parameter: 'proxy', message: 'give either proxy or ip_location, not both' }
      : undefined,
  (v) =>
    given(v, 'cookies') && !given(v, 'url')
      ? { parameter: 'cookies', message: 'cookies need url (they are set for the address of the page)' }
      : undefined,
  (v) =>
    given(v, 'authorization') && !given(v, 'url')
      ? { parameter: 'authorization', message: 'authorization needs url (it is sent to the origin of the page only)' }
      : undefined,
  (v) => {
    const scrollOnly = ['scroll_by_amount', 'scroll_by_delay', 'scroll_by_duration', 'scroll_back', 'scroll_back_delay', 'scroll_easing'];
    const stray = v.scenario === 'scroll' ? undefined : scrollOnly.find((n) => given(v, n));
    return stray ? { parameter: stray, message: `${stray} needs scenario=scroll` } : undefined;
  },
];

/** Problems of combinations, reported once per parameter, after each parameter was checked alone. */
export function crossParameterProblems(operation: Operation, values: Values): ParameterProblem[] {
  return [...CROSS_RULES.flatMap((rule) => rule(values, operation) ?? []), ...pdfParameterProblems(values), ...failureParameterProblems(values)];
}
