// RFC 9110 5.6.2 token and 5.6.4 quoted-string (ASCII only), the pieces of a media type.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED_STRING = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';

/**
 * A media type as RFC 9110 8.3.1 writes it: `type/subtype`, then optional `; name=value`
 * parameters. Nothing else: no CR/LF or other control a consumer could echo into a header or a log.
 */
export const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*(?:${TOKEN}=(?:${TOKEN}|${QUOTED_STRING}))?)*$`,
);

/** A client's declared type as stored: kept when it is a media type, empty (none declared) when not. */
export function declaredMediaType(value: string): string {
  return value.length <= 255 && MEDIA_TYPE.test(value) ? value : '';
}
