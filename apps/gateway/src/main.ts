import { x } from '@kw/platform-config'; console.log('x', x);
