type Schema = Record<string, any>;

/**
 * Where the document leaves something undescribed: every operation, parameter and object
 * property (in components and inline, through arrays, unions and nested objects) must say
 * what it is. A property that is only a `$ref` is described by its component.
 */
export function undescribed(doc: Schema): string[] {
  const missing: string[] = [];
  const described = (s: Schema) =>
    typeof s.description === 'string' && s.description.trim() !== '' ||
    (typeof s.$ref === 'string' && Boolean(doc.components.schemas[s.$ref.split('/').pop()!]?.description));
  const walk = (s: Schema | undefined, at: string) => {
    if (!s || typeof s !== 'object') return;
    for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      if (!described(prop)) missing.push(`${at}.${name}`);
      walk(prop, `${at}.${name}`);
    }
    if (s.items) walk(s.items, `${at}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) (s[key] ?? []).forEach((sub: Schema, i: number) => walk(sub, `${at}.${key}${i}`));
  };
  for (const [name, schema] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Schema>)) {
    if (!described(schema)) missing.push(`#/components/schemas/${name}`);
    walk(schema, name);
  }
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const at = `${method} ${path}`;
      if (!op.description) missing.push(`${at} (operation)`);
      for (const p of op.parameters ?? []) {
        const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p;
        if (!param.description) missing.push(`${at} parameter ${param.name}`);
      }
      for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Schema>)) walk(media.schema, `${at} body`);
      for (const [status, res] of Object.entries((op.responses ?? {}) as Record<string, Schema>)) {
        for (const media of Object.values((res.content ?? {}) as Record<string, Schema>)) walk(media.schema, `${at} ${status}`);
      }
    }
  }
  return missing;
}
