export type RenderOperation = 'screenshot' | 'pdf' | 'scrape' | 'screencast';

export interface RenderDeadline {
  /** Budget of the render in milliseconds (the `timeout` parameter). */
  timeoutMs: number;
}

/** The produced file, before metadata. */
export interface Artifact {
  body: Buffer;
  contentType: string;
  extension: string;
}

export interface RenderOutput extends Artifact {
  /** X-Service-Metadata-* headers the caller asked for. */
  headers: Record<string, string>;
  /** HTTP status of the page's main response (absent for `html` input). */
  pageStatus?: number;
}
