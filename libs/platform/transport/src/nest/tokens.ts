/** DI token of the Transport instance (`@Inject(TRANSPORT) transport: Transport`). */
export const TRANSPORT = Symbol.for('kw.platform.Transport');
