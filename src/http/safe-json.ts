/**
 * JSON.parse without `__proto__` keys. JSON.parse makes such a key an own property, which a later `in`
 * walk or merge then follows into Object.prototype. koa-body refuses them in JSON bodies; this is for
 * JSON that arrives as text inside a request (a CKAN form field, a dict sent as a string). The walk is
 * a loop, not a reviver: text nested 100,000 deep must reach the depth check, not overflow the stack.
 */
export function parseJsonText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const pending: unknown[] = [value];
  while (pending.length) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) delete (node as Record<string, unknown>)['__proto__'];
    for (const child of Object.values(node)) pending.push(child);
  }
  return value;
}
