import { createLogger } from '@app/logging';
import { runService } from '@app/runtime';
import { parseConfig } from './config.js';
import { createApp } from './app.js';

const logger = createLogger('edge-http');
await runService({ name: 'edge-http', logger, create: async () => createApp(parseConfig(), logger) });
