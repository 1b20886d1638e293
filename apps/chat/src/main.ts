import { refuseBadConfig } from '@kw/platform-config';

// The environment is checked before the components' modules load: a bad setting stops the
// process at once (exit 2) instead of after a second and more of loading.
refuseBadConfig('chat');
await import('./platform.js');
