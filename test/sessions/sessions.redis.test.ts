import { sessionSuite } from './suite.ts';

// Live sessions kept in Redis (REDIS_URL set): the same guarantees, shared by every instance.
sessionSuite(() => ({ REDIS_URL: process.env.KEYWARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' }));
