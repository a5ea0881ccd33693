/**
 * JSON.parse without `__proto__` keys. JSON.parse makes such a key an own property, which a later `in`
 * walk or merge then follows into Object.prototype. koa-body refuses them in JSON bodies; this is for
 * JSON that arrives as text inside a request (a CKAN form field, a dict sent as a string).
 */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}
