/**
 * The one spelling of an email address under which an account is stored, looked up and
 * throttled: surrounding whitespace and case never make another address (" Dave@x.org " is
 * dave@x.org), so a variant can neither create a twin account nor get a fresh sign-in budget.
 */
export function canonicalEmail(raw: string): string {
  return raw.trim().toLowerCase();
}
