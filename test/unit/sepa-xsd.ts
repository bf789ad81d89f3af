import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

// XSD validation of the SEPA tests' files with libxml2 (xmllint compiled to WebAssembly:
// no system package needed), against the schemas vendored unchanged in
// test/vendor/iso20022/ (its README says where each comes from).

const VENDOR = fileURLToPath(new URL('../vendor/iso20022/', import.meta.url));

export const SCHEMAS = {
  'pain.001.001.03': 'pain.001.001.03.xsd',
  'pain.001.001.09': 'pain.001.001.09.xsd',
  'pain.001.001.09 EPC': 'pain.001.001.09.EPC132-08_2023.xsd',
  'camt.053.001.02': 'camt.053.001.02.xsd',
  'camt.053.001.08': 'camt.053.001.08.xsd',
} as const;

/**
 * The schema errors of each document of `docs` (name → XML) against the vendored schema
 * `schema`: an empty list for a valid one. One xmllint run for all of them, since loading
 * libxml2 and compiling a schema is most of the time a validation takes.
 */
export async function xsdErrorsOf<K extends string>(docs: Record<K, string>, schema: keyof typeof SCHEMAS): Promise<Record<K, string[]>> {
  const file = SCHEMAS[schema];
  const names = Object.keys(docs) as K[];
  const result = await validateXML({
    xml: names.map((name) => ({ fileName: `${name}.xml`, contents: docs[name] })),
    schema: [{ fileName: file, contents: readFileSync(VENDOR + file, 'utf8') }],
  });
  const out = Object.fromEntries(names.map((n) => [n, [] as string[]])) as Record<K, string[]>;
  for (const e of result.errors) {
    // xmllint closes each invalid document with "<name>.xml fails to validate", without a position.
    const fileName = e.loc?.fileName ?? /^(\S+) fails to validate$/.exec(e.message)?.[1];
    const name = fileName?.replace(/\.xml$/, '') as K | undefined;
    // An error that names no document is the schema's or the tool's: every document fails.
    for (const n of name !== undefined && name in out ? [name] : names) out[n].push(e.message);
  }
  return out;
}
