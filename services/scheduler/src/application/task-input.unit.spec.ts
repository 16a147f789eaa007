import { describe, expect, it } from 'vitest';
import { isAppError } from '@app/errors';
import type { ActiveTask } from '../domain/task/task.js';
import { definitionForCreate, definitionForUpdate, type TaskFields } from './task-input.js';
import { parseTaskQuery } from './task-query.js';

const NOW = Date.parse('2026-07-15T13:47:20Z');
const valid: TaskFields = { name: 'Front page', api: 'screenshot', query: 'url=https://example.com/', frequency: 'every_hour' };

/** The parameters named by the ValidationError `fn` throws. */
function problemsOf(fn: () => unknown): { parameter: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (isAppError(err) && err.code === 'invalid_parameter') return err.details ?? [];
    throw err;
  }
  throw new Error('no error was thrown');
}
const parametersOf = (fn: () => unknown) => problemsOf(fn).map((p) => p.parameter).sort();

describe('Task creation input', () => {
  describe('When the fields are valid and only the required ones are given', () => {
    it('should apply the defaults and derive the crontab from the creation time', () => {
      expect(definitionForCreate(valid, NOW)).toEqual({
        definition: { name: 'Front page', api: 'screenshot', query: 'url=https://example.com/', frequency: 'every_hour', crontab: '47 * * * *', timezone: 'Etc/UTC' },
        enabled: true,
      });
    });
  });

  describe('When the query is URL-encoded, or not, or encoded as a whole', () => {
    it.each([
      'url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&format=png',
      'url=https://example.com/a&format=png&full_page=true',
      encodeURIComponent('url=https://example.com/a&format=png'),
      '?url=https://example.com/a&format=png',
    ])('should accept %j and keep it as sent', (query) => {
      expect(definitionForCreate({ ...valid, query }, NOW).definition.query).toBe(query);
    });

    it('should read the url inside the same way in each form', () => {
      expect(parseTaskQuery('url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&format=png')).toEqual({ url: 'https://example.com/a?b=1', format: 'png' });
      expect(parseTaskQuery(encodeURIComponent('url=https://example.com/a?b=1&format=png'))).toEqual({ url: 'https://example.com/a?b=1', format: 'png' });
      expect(parseTaskQuery('hide_selectors=.a&hide_selectors=.b')).toEqual({ hide_selectors: ['.a', '.b'] });
    });
  });

  describe('When the query holds an access key', () => {
    it('should refuse it, naming the parameter inside the query', () => {
      const problems = problemsOf(() => definitionForCreate({ ...valid, query: 'url=https://example.com&access_key=ak_123' }, NOW));
      expect(problems).toEqual([{ parameter: 'query.access_key', message: expect.stringContaining('access_key must not be part of a task query') }]);
    });
  });

  describe('When the query breaks the rules of the operation it names', () => {
    it.each([
      ['screenshot', 'url=https://example.com&format=bmp', ['query.format']],
      ['screenshot', 'url=https://example.com&viewport_width=-5&delay=99', ['query.delay', 'query.viewport_width']],
      ['pdf', 'url=https://example.com&format=png', ['query.format']],
      ['scrape', 'html=<p>hi</p>', ['query.html', 'query.url']],
      ['screenshot', 'url=not a url', ['query.url']],
      ['screenshot', 'unknown_thing=1&url=https://example.com', ['query.unknown_thing']],
      ['screenshot', '', ['query']],
    ])('should refuse a %s task with %j', (api, query, parameters) => {
      expect(parametersOf(() => definitionForCreate({ ...valid, api, query }, NOW))).toEqual(parameters);
    });
  });

  describe('When the api is screencast', () => {
    it('should accept it and validate its query with the screencast rules', () => {
      const query = 'url=https://example.com&scenario=scroll&format=webm&duration=3';
      expect(definitionForCreate({ ...valid, api: 'screencast', query }, NOW).definition.api).toBe('screencast');
      expect(parametersOf(() => definitionForCreate({ ...valid, api: 'screencast', query: 'url=https://example.com&duration=31' }, NOW))).toEqual([
        'query.duration',
      ]);
    });
  });

  describe('When the api is not an operation', () => {
    it('should refuse it, naming api and the operations', () => {
      const problems = problemsOf(() => definitionForCreate({ ...valid, api: 'video' }, NOW));
      expect(problems).toEqual([{ parameter: 'api', message: 'api must be one of screenshot, pdf, scrape, screencast' }]);
    });
  });

  describe('When the name is long', () => {
    it('should accept 100 characters and refuse 101', () => {
      expect(definitionForCreate({ ...valid, name: '🙂'.repeat(100) }, NOW).definition.name).toHaveLength(200);
      expect(parametersOf(() => definitionForCreate({ ...valid, name: 'x'.repeat(101) }, NOW))).toEqual(['name']);
    });
  });

  describe('When the name holds a control character or a line break', () => {
    it.each([
      ['NUL', 'a\u0000b'],
      ['CR/LF', 'Front\r\nX-Injected: 1'],
      ['LF', 'two\nlines'],
      ['tab', 'a\tb'],
      ['DEL', 'a\u007fb'],
      ['a C1 control', 'a\u0085b'],
      ['a line separator', 'a\u2028b'],
    ])('should refuse %s, naming name', (_label, name) => {
      expect(problemsOf(() => definitionForCreate({ ...valid, name }, NOW))).toEqual([
        { parameter: 'name', message: 'name must not contain control characters or line breaks' },
      ]);
    });

    it('should keep any other Unicode text', () => {
      expect(definitionForCreate({ ...valid, name: 'Rapport « été » 🙂 — 東京' }, NOW).definition.name).toBe('Rapport « été » 🙂 — 東京');
    });
  });

  describe('When several fields are wrong at once', () => {
    it('should name every one of them', () => {
      expect(
        parametersOf(() => definitionForCreate({ name: '', api: 'video', query: 'url=https://example.com', frequency: 'weekly', timezone: 'Mars/Olympus' }, NOW)),
      ).toEqual(['api', 'frequency', 'name', 'timezone']);
      expect(parametersOf(() => definitionForCreate({}, NOW))).toEqual(['api', 'frequency', 'name', 'query']);
    });
  });

  describe('When frequency and crontab disagree', () => {
    it('should refuse a crontab with a fixed frequency, and custom without one', () => {
      expect(problemsOf(() => definitionForCreate({ ...valid, crontab: '* * * * *' }, NOW))).toEqual([
        { parameter: 'crontab', message: 'crontab is only accepted with frequency custom' },
      ]);
      expect(problemsOf(() => definitionForCreate({ ...valid, frequency: 'custom' }, NOW))).toEqual([
        { parameter: 'crontab', message: 'crontab is required when frequency is custom' },
      ]);
      expect(parametersOf(() => definitionForCreate({ ...valid, frequency: 'custom', crontab: '0 25 * * *' }, NOW))).toEqual(['crontab']);
    });

    it('should keep a valid custom crontab, spaces normalised', () => {
      expect(definitionForCreate({ ...valid, frequency: 'custom', crontab: ' 0  9 * * 1-5 ' }, NOW).definition.crontab).toBe('0 9 * * 1-5');
    });
  });

  describe('When the time zone is given', () => {
    it.each(['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'US/Eastern', 'UTC', 'Etc/GMT+5'])('should accept the IANA name %s', (timezone) => {
      expect(definitionForCreate({ ...valid, timezone }, NOW).definition.timezone).toBe(timezone);
    });

    it.each(['utc', '+01:00', 'GMT+1', 'Europe/Atlantis', 'CEST', ''])('should refuse %j', (timezone) => {
      expect(parametersOf(() => definitionForCreate({ ...valid, timezone }, NOW))).toEqual(['timezone']);
    });

    it('should derive the crontab in that zone', () => {
      expect(definitionForCreate({ ...valid, frequency: 'every_day', timezone: 'Asia/Kolkata' }, NOW).definition.crontab).toBe('17 19 * * *');
    });
  });
});

describe('Task update input', () => {
  const task: ActiveTask = {
    status: 'Active',
    taskId: 3,
    accountId: 'acc_a',
    definition: { name: 'Daily', api: 'screenshot', query: 'url=https://example.com&format=png', frequency: 'every_day', crontab: '47 13 * * *', timezone: 'Etc/UTC' },
    enabled: true,
    createdAt: NOW,
    scheduleSince: NOW,
    lastDueAt: null,
    runs: 0,
    lastRunAt: null,
    openRuns: {},
  };

  describe('When the new name holds a control character', () => {
    it('should refuse it, naming name', () => {
      expect(parametersOf(() => definitionForUpdate(task, { name: 'a\u0000b' }))).toEqual(['name']);
      expect(parametersOf(() => definitionForUpdate(task, { name: 'a\r\nb' }))).toEqual(['name']);
    });
  });

  describe('When only the time zone of a fixed frequency changes', () => {
    it('should derive the crontab again from the creation time in the new zone', () => {
      expect(definitionForUpdate(task, { timezone: 'America/New_York' }).definition).toMatchObject({ crontab: '47 9 * * *', timezone: 'America/New_York' });
    });
  });

  describe('When the frequency becomes custom', () => {
    it('should take the given crontab, and require one', () => {
      expect(definitionForUpdate(task, { frequency: 'custom', crontab: '0 */2 * * *' }).definition.crontab).toBe('0 */2 * * *');
      expect(parametersOf(() => definitionForUpdate(task, { frequency: 'custom' }))).toEqual(['crontab']);
    });
  });

  describe('When a crontab is sent for a fixed frequency', () => {
    it('should refuse it', () => {
      expect(parametersOf(() => definitionForUpdate(task, { crontab: '0 1 * * *' }))).toEqual(['crontab']);
    });
  });

  describe('When the api changes and the query does not suit it', () => {
    it('should check the query against the new api', () => {
      expect(parametersOf(() => definitionForUpdate(task, { api: 'pdf' }))).toEqual(['query.format']);
      expect(definitionForUpdate(task, { api: 'pdf', query: 'url=https://example.com' }).definition.api).toBe('pdf');
    });
  });

  describe('When only enabled is sent', () => {
    it('should keep the definition and carry the switch', () => {
      expect(definitionForUpdate(task, { enabled: false })).toEqual({ definition: task.definition, enabled: false });
    });
  });
});
