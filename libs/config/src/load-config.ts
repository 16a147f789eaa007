import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's schema; names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once with a zod schema whose keys are the variable names.
 * Fails fast with one error that lists every bad variable, not only the first.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    variable: issue.path.length > 0 ? issue.path.map(String).join('.') : '(environment)',
    message: issue.message,
  }));
  throw new ConfigError(problems);
}
