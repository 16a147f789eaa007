import type { Countdown } from './countdown.js';
import type { PageSession } from './session/page-session.js';

export type RenderOperation = 'screenshot' | 'pdf' | 'scrape' | 'screencast';

export interface RenderDeadline {
  /** Budget of the render in milliseconds (the `timeout` parameter). */
  timeoutMs: number;
  /**
   * When the budget ends (epoch milliseconds), if it started before the render did (waiting for a page):
   * the render's own waits then end with the pool's deadline, not after it.
   */
  endsAt?: number | undefined;
}

/** The produced file, before metadata. */
export interface Artifact {
  body: Buffer;
  contentType: string;
  extension: string;
}

/**
 * An artifact in the making, started once the page is set up: work of its own (a screencast's encoder)
 * can get ready while the page loads. `produce` makes the file once the page is prepared; `abandon`
 * releases what was started when it never ran or failed (idempotent).
 */
export interface Production {
  produce(clock: Countdown): Promise<Artifact>;
  abandon(): Promise<void>;
}

export interface RenderOutput extends Artifact {
  /** X-Service-Metadata-* headers the caller asked for. */
  headers: Record<string, string>;
  /** HTTP status of the page's main response (absent for `html` input). */
  pageStatus?: number;
  /** The page's session when the render was asked to keep it (RenderExtras.session.keep). */
  session?: PageSession;
}

/** What a render gets besides its parameters, fetched for it alone and never part of its job. */
export interface RenderExtras {
  /** The values of the account secrets its `type` steps name. */
  secrets?: ReadonlyMap<string, string> | undefined;
  /** A task's kept session: `restore` is put back before navigating; `keep` asks for the page's session after success. */
  session?: RenderSession | undefined;
}

export interface RenderSession {
  restore?: PageSession | undefined;
  keep: boolean;
}
