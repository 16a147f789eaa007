import TurndownService from 'turndown';

let service: TurndownService | undefined;

/** HTML to Markdown with turndown: ATX headings, fenced code, `-` bullets; scripts, styles and head left out. */
export function htmlToMarkdown(html: string): string {
  service ??= new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' }).remove([
    'script',
    'style',
    'noscript',
    'head',
    'template',
  ]);
  return service.turndown(html);
}
