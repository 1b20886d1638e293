/** Field limits of webhooks that their write messages carry (the rest stays in libs/webhooks). */
export const WEBHOOK_NAME_MAX = 120;
export const WEBHOOK_URL_MAX = 2048;
