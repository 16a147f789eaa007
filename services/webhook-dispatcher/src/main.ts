import { createLogger } from '@app/logging';
import { runService } from '@app/runtime';
import { parseConfig } from './config.js';
import { createApp } from './app.js';

const logger = createLogger('webhook-dispatcher');
await runService({ name: 'webhook-dispatcher', logger, create: async () => createApp(parseConfig(), logger) });
