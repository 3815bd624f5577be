/**
 * Text patterns of wire fields, kept free of zod so that both the classic schemas
 * (`field-schemas.ts`) and the `zod/mini` ones (`service-api-schemas.ts`) use the same rule
 * without one pulling the other into a bundle.
 */

/** An absolute http(s) URL without whitespace or userinfo-free authority checks beyond the host. */
export const HTTP_URL_PATTERN = /^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/i;

/**
 * A time span: one or more number + unit pairs (`"95s"`, `"250ms"`, `"1h2m3.5s"`).
 * Units: `ns`, `us`/`µs`, `ms`, `s`, `m`, `h`, `d`.
 */
export const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d))+$/;

/** What a value that does not match {@link DURATION_PATTERN} should have been. */
export const DURATION_EXPECTED = 'a duration such as "95s", "250ms" or "1h2m"';
/** What a schema says when a duration does not match {@link DURATION_PATTERN}. */
export const DURATION_MESSAGE = `expected ${DURATION_EXPECTED}`;

/** What a value that does not match {@link HTTP_URL_PATTERN} should have been. */
export const HTTP_URL_EXPECTED = 'an absolute http(s) URL';
/** What a schema says when a detailsURL does not match {@link HTTP_URL_PATTERN}. */
export const HTTP_URL_MESSAGE = `expected ${HTTP_URL_EXPECTED}`;
