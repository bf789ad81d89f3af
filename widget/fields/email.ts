// An e-mail address as the customer may give it (the sign-up page) and the API takes it
// (`customer_email`): the HTML living standard's rule, which is also what a browser's
// `type="email"` checks, so the screen, the server and the browser agree.

// eslint-disable-next-line no-useless-escape -- spelled as the standard spells it
export const EMAIL_PATTERN = /^[a-zA-Z0-9.!#$%&'*+\/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** The longest address SMTP can carry (RFC 5321's path limit less its brackets). */
export const EMAIL_MAX_LENGTH = 254;

export function isEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(value);
}
