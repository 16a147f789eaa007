/**
 * The message formats of the chat services' incoming webhooks, as their documentation states them, written
 * as JSON Schemas (draft 2020-12) so a test can check what our dispatcher sent:
 * - Slack, "Sending messages using incoming webhooks" and the Block Kit reference: a JSON body with `text`
 *   (the notification's fallback) and/or `blocks`, at most 50; a `header` block's text is plain_text of at
 *   most 150 characters; a `section`'s text is mrkdwn or plain_text of at most 3,000; an `actions` block holds
 *   at most 25 elements, a `button` with a plain_text `text` of at most 75 characters and a `url` of at most
 *   3,000.
 * - Discord, "Execute Webhook": `content` (at most 2,000 characters) and/or `embeds` (at most 10); an embed's
 *   `title` at most 256, `description` at most 4,096, `url`, `color` an integer, `timestamp` ISO 8601,
 *   `fields` at most 25, each `name` at most 256 and `value` at most 1,024, `inline` a boolean.
 * - Microsoft Teams, "Create and send messages" with an incoming webhook (legacy actionable message card):
 *   `@type` "MessageCard", `@context` "https://schema.org/extensions", `summary` or `text` required,
 *   `themeColor` a hex colour, `title`, `sections` with `activityTitle`, `text` and `facts` ({name, value}),
 *   `potentialAction` with `OpenUri` actions, each with `name` and `targets` ({os, uri}).
 */

const plainText = (max: number) => ({
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'plain_text' }, text: { type: 'string', minLength: 1, maxLength: max }, emoji: { type: 'boolean' } },
  additionalProperties: false,
});

export const SLACK_MESSAGE = {
  type: 'object',
  anyOf: [{ required: ['text'] }, { required: ['blocks'] }],
  properties: {
    text: { type: 'string', minLength: 1 },
    blocks: {
      type: 'array',
      maxItems: 50,
      items: {
        oneOf: [
          { type: 'object', required: ['type', 'text'], properties: { type: { const: 'header' }, text: plainText(150), block_id: { type: 'string' } }, additionalProperties: false },
          {
            type: 'object',
            required: ['type', 'text'],
            properties: {
              type: { const: 'section' },
              text: {
                type: 'object',
                required: ['type', 'text'],
                properties: { type: { enum: ['mrkdwn', 'plain_text'] }, text: { type: 'string', minLength: 1, maxLength: 3000 } },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
          {
            type: 'object',
            required: ['type', 'elements'],
            properties: {
              type: { const: 'actions' },
              elements: {
                type: 'array',
                minItems: 1,
                maxItems: 25,
                items: {
                  type: 'object',
                  required: ['type', 'text'],
                  properties: { type: { const: 'button' }, text: plainText(75), url: { type: 'string', maxLength: 3000, pattern: '^https?://' }, action_id: { type: 'string' } },
                  additionalProperties: false,
                },
              },
            },
            additionalProperties: false,
          },
        ],
      },
    },
  },
  additionalProperties: false,
};

export const DISCORD_MESSAGE = {
  type: 'object',
  anyOf: [{ required: ['content'] }, { required: ['embeds'] }],
  properties: {
    content: { type: 'string', maxLength: 2000 },
    username: { type: 'string' },
    embeds: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 256 },
          description: { type: 'string', maxLength: 4096 },
          url: { type: 'string', pattern: '^https?://' },
          color: { type: 'integer', minimum: 0, maximum: 0xffffff },
          timestamp: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' },
          fields: {
            type: 'array',
            maxItems: 25,
            items: {
              type: 'object',
              required: ['name', 'value'],
              properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, value: { type: 'string', minLength: 1, maxLength: 1024 }, inline: { type: 'boolean' } },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

export const TEAMS_MESSAGE_CARD = {
  type: 'object',
  required: ['@type', '@context'],
  anyOf: [{ required: ['summary'] }, { required: ['text'] }],
  properties: {
    '@type': { const: 'MessageCard' },
    '@context': { const: 'https://schema.org/extensions' },
    summary: { type: 'string', minLength: 1 },
    text: { type: 'string' },
    title: { type: 'string' },
    themeColor: { type: 'string', pattern: '^[0-9A-Fa-f]{6}$' },
    sections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          activityTitle: { type: 'string' },
          text: { type: 'string' },
          facts: {
            type: 'array',
            items: { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } }, additionalProperties: false },
          },
        },
        additionalProperties: false,
      },
    },
    potentialAction: {
      type: 'array',
      items: {
        type: 'object',
        required: ['@type', 'name', 'targets'],
        properties: {
          '@type': { const: 'OpenUri' },
          name: { type: 'string', minLength: 1 },
          targets: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['os', 'uri'],
              properties: { os: { enum: ['default', 'iOS', 'android', 'windows'] }, uri: { type: 'string', pattern: '^https?://' } },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};
